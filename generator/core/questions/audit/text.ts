import { singleSpaced } from '../../kernel/whitespace.js';
import type { McqQuestion } from '../types.js';

/** Letters shown to the model, by position. */
export function letterOf(index: number): string {
  return String.fromCharCode(65 + index);
}

// NFKC is costly on long prompts and a no-op on ASCII, which most trajectory text is.
const nonAscii = /[^\x00-\x7f]/;
function nfkc(text: string): string {
  return nonAscii.test(text) ? text.normalize('NFKC') : text;
}

/** Whitespace-collapsed, NFKC-normalised text: what "verbatim" means for leak checks. */
export function collapseWhitespace(text: string): string {
  return singleSpaced(nfkc(text)).trim();
}

// Scripts written without spaces count one character per word, or a whole Chinese sentence
// would be a single "word" and overlap would be meaningless there.
const unspacedScript = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}`;
const wordPattern = new RegExp(String.raw`[${unspacedScript}]|(?:(?![${unspacedScript}])[\p{L}\p{N}_])+`, 'gu');

const unspacedPattern = new RegExp(`[${unspacedScript}]`, 'u');

/** Lower-cased word tokens (letters, digits, underscore); CJK/Thai one character per token. */
export function words(text: string): string[] {
  const lower = nfkc(text).toLowerCase();
  // The Unicode-aware pattern is several times slower; most trajectory text never needs it.
  if (!nonAscii.test(lower)) return lower.match(/[a-z0-9_]+/g) ?? [];
  const out: string[] = [];
  for (const run of lower.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    if (unspacedPattern.test(run)) out.push(...(run.match(wordPattern) ?? []));
    else out.push(run);
  }
  return out;
}

/**
 * The part of an MCQ prompt that is context, not the rendered choice list. Prompts usually
 * render the options themselves (`Choices: (A) …`), and every option trivially "overlaps"
 * with its own rendering, so the block spanning the last occurrence of each option is cut
 * out. Options the prompt does not render verbatim are simply not found and cost nothing.
 */
export function contextOf(question: Pick<McqQuestion, 'prompt' | 'choices'>): string {
  const prompt = question.prompt;
  const spans: Array<[number, number]> = [];
  for (const choice of question.choices) {
    if (choice.length === 0) continue;
    const at = prompt.lastIndexOf(choice);
    if (at >= 0) spans.push([at, at + choice.length]);
  }
  if (spans.length === 0) return prompt;
  if (spans.length === question.choices.length) {
    const start = Math.min(...spans.map((s) => s[0]));
    const end = Math.max(...spans.map((s) => s[1]));
    return prompt.slice(0, start) + prompt.slice(end);
  }
  spans.sort((a, b) => b[0] - a[0]);
  let out = prompt;
  let floor = Number.POSITIVE_INFINITY;
  for (const [s, e] of spans) {
    if (e > floor) continue; // overlapping spans (an option contained in another): cut once
    out = out.slice(0, s) + out.slice(e);
    floor = s;
  }
  return out;
}

/** Count of (possibly overlapping) occurrences of `needle` in `haystack`. */
export function occurrences(haystack: string, needle: string): number {
  if (needle.length === 0) return 0;
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}
