import type { Action } from '../../trajectories/types.js';
import { planFromAction } from '../plans.js';
import type { StepCandidate } from './types.js';

/** Replaces `from` by `to` in a value's strings, recursively. */
function replaceDeep(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, from, to));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = replaceDeep(v, from, to);
    return out;
  }
  return value;
}

/** A candidate with `from` replaced by `to` everywhere it is written: action text, args and a given plan. */
export function replaceInCandidate(c: StepCandidate, from: string, to: string): StepCandidate {
  const action: Action = {
    ...c.action,
    text: c.action.text.split(from).join(to),
    args: replaceDeep(c.action.args, from, to) as Record<string, unknown>,
    raw: c.action.raw ? c.action.raw.split(from).join(to) : c.action.raw,
  };
  return { ...withAction(c, action, c.planGiven ? c.plan.split(from).join(to) : undefined), reason: c.reason };
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
