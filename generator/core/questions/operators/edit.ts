import type { Action } from '../../trajectories/types.js';
import { planFromAction } from '../plans.js';
import type { StepCandidate } from './types.js';

const WORD_CHAR = /[\p{Script=Latin}\p{N}_]/u;

/**
 * `text` with every whole-token occurrence of `from` replaced by `to`: an occurrence whose edge
 * is a letter, digit or underscore continuing into the text around it is part of a longer word
 * and stays (`Dance` is not replaced inside `ByteDance`, `Ph` not inside `PhD`). CJK has no
 * word boundaries, so a CJK edge always counts.
 */
export function replaceWhole(text: string, from: string, to: string): string {
  if (!from) return text;
  const startsWord = WORD_CHAR.test(from[0]!);
  const endsWord = WORD_CHAR.test(from[from.length - 1]!);
  let out = '';
  let last = 0;
  for (let at = text.indexOf(from); at >= 0; at = text.indexOf(from, at + 1)) {
    if (at < last) continue;
    const before = text[at - 1] ?? ' ';
    const after = text[at + from.length] ?? ' ';
    if ((startsWord && WORD_CHAR.test(before)) || (endsWord && WORD_CHAR.test(after))) continue;
    out += text.slice(last, at) + to;
    last = at + from.length;
  }
  return out + text.slice(last);
}

/** Replaces whole-token `from` by `to` in a value's strings, recursively. */
function replaceDeep(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return replaceWhole(value, from, to);
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, from, to));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = replaceDeep(v, from, to);
    return out;
  }
  return value;
}

/** A candidate with whole-token `from` replaced by `to` everywhere it is written: action text, args and a given plan. */
export function replaceInCandidate(c: StepCandidate, from: string, to: string): StepCandidate {
  const action: Action = {
    ...c.action,
    text: replaceWhole(c.action.text, from, to),
    args: replaceDeep(c.action.args, from, to) as Record<string, unknown>,
    raw: c.action.raw ? replaceWhole(c.action.raw, from, to) : c.action.raw,
  };
  return { ...withAction(c, action, c.planGiven ? replaceWhole(c.plan, from, to) : undefined), reason: c.reason };
}

/** A candidate for a new action: a given plan is kept (or replaced), a derived one is derived again. */
export function withAction(c: StepCandidate, action: Action, plan?: string): StepCandidate {
  if (c.planGiven) return { plan: plan ?? c.plan, planGiven: true, action };
  return { plan: planFromAction(action), planGiven: false, action };
}

const PATH_RE = /(?:\/?[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]+\.[A-Za-z0-9]{1,8}\b|\b[A-Za-z0-9_-]+\.(?:py|js|ts|tsx|jsx|go|rs|java|c|h|cc|cpp|rb|php|toml|cfg|ini|yaml|yml|json|txt|md|sh|rst)\b/g;

/** File-like paths in a text, in order of first appearance. */
export function pathsIn(text: string, limit = 200): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PATH_RE)) {
    const p = m[0];
    if (/^\d+\.\d+/.test(p) || p.startsWith('http') || p.includes('//')) continue;
    if (!out.includes(p)) out.push(p);
    if (out.length >= limit) break;
  }
  return out;
}

const IDENT_RE = /\b[A-Za-z_][A-Za-z0-9_]{3,40}\b/g;
const STOP = new Set(['self', 'return', 'import', 'from', 'with', 'None', 'True', 'False', 'class', 'def', 'else', 'elif', 'while', 'this', 'that', 'have', 'what', 'which', 'there', 'their', 'would', 'should', 'could', 'about', 'http', 'https', 'testbed']);

/** Identifier-like words of a text, in order of first appearance. */
export function identifiersIn(text: string, limit = 300): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(IDENT_RE)) {
    const w = m[0];
    if (STOP.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
    if (out.length >= limit) break;
  }
  return out;
}
