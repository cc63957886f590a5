import type { Action } from '../../trajectories/types.js';
import { planFromAction } from '../plans.js';
import type { StepCandidate } from './types.js';

/** Letters, digits, marks and underscore: the characters of one word. */
const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;
/** Scripts written without spaces between words (CJK, Thai …): no segmentation here, so their edges always count as boundaries. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u3000-\u303f]/u;
/** Hyphens and apostrophes between two word characters join them into one token (`Donau-Universität`, `O'Brien`). */
const JOINER = /['’\u2010\u2011-]/;
const DIGIT = /\p{N}/u;
/** An apostrophe-s ending a word is a possessive, not a part of the word (`Tchiani's` holds the token `Tchiani`). */
const POSSESSIVE = /^['’]s(?![\p{L}\p{N}\p{M}_])/u;

function isWord(ch: string | undefined): boolean {
  return ch !== undefined && WORD_CHAR.test(ch) && !UNSPACED.test(ch);
}

/**
 * Whether `left` and `right` written one after the other continue one token across the seam:
 * two word characters touch (`April` + `European`), or a hyphen or apostrophe stands between
 * word characters (`Donau-` + `Universität`). A possessive `'s` after a word does not join, nor
 * does a hyphen between digits (a range or a date: `1863-1916`).
 */
export function joins(left: string, right: string): boolean {
  const l1 = left[left.length - 1];
  const r1 = right[0];
  if (isWord(l1) && isWord(r1)) return true;
  if (isWord(l1) && r1 !== undefined && JOINER.test(r1) && isWord(right[1])) return !POSSESSIVE.test(right) && !(DIGIT.test(l1!) && DIGIT.test(right[1]!));
  return l1 !== undefined && JOINER.test(l1) && isWord(left[left.length - 2]) && isWord(r1) && !(DIGIT.test(left[left.length - 2]!) && DIGIT.test(r1!));
}

/**
 * Start offsets of the whole-token occurrences of `from` in `text` that can become `to`: an
 * occurrence continuing into the text around it is part of a longer token and stays (`Dance`
 * is not replaced inside `ByteDance`, `Ph` not inside `PhD`, `Donau-` not before
 * `Universität`), and so does one that `to` would glue to its neighbours. Scripts without
 * spaces (CJK) have no word boundaries to find, so their edges always count.
 */
function occurrences(text: string, from: string, to: string): number[] {
  const out: number[] = [];
  if (!from) return out;
  let last = 0;
  for (let at = text.indexOf(from); at >= 0; at = text.indexOf(from, at + 1)) {
    if (at < last) continue;
    const before = text.slice(Math.max(0, at - 2), at);
    const after = text.slice(at + from.length, at + from.length + 2);
    if (joins(before, from) || joins(from, after)) continue;
    if (joins(before, to + after) || joins(before + to, after)) continue;
    out.push(at);
    last = at + from.length;
  }
  return out;
}

/** `text` with every whole-token occurrence of `from` replaced by `to` (see `occurrences`). */
export function replaceWhole(text: string, from: string, to: string): string {
  let out = '';
  let last = 0;
  for (const at of occurrences(text, from, to)) {
    out += text.slice(last, at) + to;
    last = at + from.length;
  }
  return out + text.slice(last);
}

/** Function words that may repeat close together in fluent text. */
const FUNCTION_WORDS = new Set('the and for with from that this into what which who when where are was were has have had not but its their his her any all one'.split(' '));
/** Words either side of a replaced occurrence that a word of the replacement must not repeat. */
const REPEAT_WINDOW = 3;

function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).filter((w) => (w.length >= 3 || /^\d{2,}$/.test(w)) && !FUNCTION_WORDS.has(w));
}

/**
 * Whether replacing `from` by `to` in `text` would write a word of `to` (one `from` did not
 * have) within REPEAT_WINDOW words of the same word around the occurrence: "the first
 * president of President", "Gini data for Protected Data countries", "2015 Deal nuclear deal".
 */
export function repeatsAround(text: string, from: string, to: string): boolean {
  const fresh = new Set(contentWords(to));
  for (const w of contentWords(from)) fresh.delete(w);
  if (fresh.size === 0) return false;
  const tokens = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  for (const at of occurrences(text, from, to)) {
    const near = [...tokens(text.slice(Math.max(0, at - 200), at)).slice(-REPEAT_WINDOW), ...tokens(text.slice(at + from.length, at + from.length + 200)).slice(0, REPEAT_WINDOW)];
    if (near.some((w) => fresh.has(w))) return true;
  }
  return false;
}

/** Whether replacing `from` by `to` in a candidate (plan when given, action text and arguments) would leave a repeated word ("president of President"). */
export function substitutionRepeats(c: StepCandidate, from: string, to: string): boolean {
  const texts = [c.action.text, ...stringsIn(c.action.args)];
  if (c.planGiven) texts.push(c.plan);
  return texts.some((t) => t.includes(from) && repeatsAround(t, from, to));
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
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
  return { ...withAction(c, replaceInAction(c.action, from, to), c.planGiven ? replaceWhole(c.plan, from, to) : undefined), reason: c.reason };
}

/**
 * The same replacement, a derived plan left as it was (stale): for a chain of replacements whose
 * plan is derived once, from the last action (`withAction`), instead of after every link.
 */
export function replaceLeavingPlan(c: StepCandidate, from: string, to: string): StepCandidate {
  return { ...c, action: replaceInAction(c.action, from, to), plan: c.planGiven ? replaceWhole(c.plan, from, to) : c.plan };
}

function replaceInAction(action: Action, from: string, to: string): Action {
  return {
    ...action,
    text: replaceWhole(action.text, from, to),
    args: replaceDeep(action.args, from, to) as Record<string, unknown>,
    raw: action.raw ? replaceWhole(action.raw, from, to) : action.raw,
  };
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
