/**
 * Per-option surface features the shortcut rules share, computed once per question object:
 * whether the option is copied from the prompt, whether it calls a tool the question does not
 * offer, how similar it is to the other options, and how much of it is about the question.
 */
import type { McqQuestion } from '../types.js';
import { callsToolNotOffered, questionSegment } from './segment.js';
import { collapseWhitespace, words } from './text.js';

/** Options shorter than this (whitespace collapsed) are not copy-checked: `ls` in a history is not a copy. */
export const MIN_COPY_CHARS = 12;

export interface OptionFeatures {
  /** Characters, whitespace collapsed. */
  length: number[];
  /** Found verbatim in the prompt outside the scored choice list (history, tool list, shots). */
  copied: boolean[];
  /** Calls a tool the question does not offer. */
  offTool: boolean[];
  /** Mean word-set Jaccard similarity to each other option. */
  similarity: number[];
  /** Share of the option's distinct words that occur in the question and trajectory (the segment). */
  relevance: number[];
}

const cache = new WeakMap<object, OptionFeatures>();

/** `trajectoryWords`: the words of the question segment's trajectory text, when the caller has read them already. */
export function optionFeatures(q: McqQuestion, trajectoryWords?: ReadonlySet<string>): OptionFeatures {
  let out = cache.get(q);
  if (out === undefined) cache.set(q, (out = computeFeatures(q, trajectoryWords)));
  return out;
}

function computeFeatures(q: McqQuestion, known: ReadonlySet<string> | undefined): OptionFeatures {
  const segment = questionSegment(q);
  const collapsed = q.choices.map(collapseWhitespace);
  const wordSets = q.choices.map((c) => new Set(words(c)));
  const trajectoryWords = known ?? new Set(words(segment.trajectory));
  const k = q.choices.length;
  const similarity = wordSets.map((a, i) => {
    if (k < 2) return 0;
    let sum = 0;
    for (let j = 0; j < k; j++) if (j !== i) sum += jaccard(a, wordSets[j]!);
    return sum / (k - 1);
  });
  return {
    length: collapsed.map((c) => [...c].length),
    copied: collapsed.map((c) => c.length >= MIN_COPY_CHARS && segment.context.includes(c)),
    offTool: q.choices.map((c) => callsToolNotOffered(q, c)),
    similarity,
    relevance: wordSets.map((set) => relevanceShare(set, trajectoryWords)),
  };
}

/** Share of an option's distinct words that occur in the question segment (0 for an option without words). */
export function relevanceShare(set: ReadonlySet<string>, context: ReadonlySet<string>): number {
  if (set.size === 0) return 0;
  let shared = 0;
  for (const w of set) if (context.has(w)) shared++;
  return shared / set.size;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  // Symmetric: the smaller set is the one walked.
  const small = a.size <= b.size ? a : b;
  const large = small === a ? b : a;
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Indices of options not flagged, or all options when every one is flagged (a rule never empties the list). */
export function survivors(candidates: readonly number[], flagged: readonly boolean[]): number[] {
  const kept = candidates.filter((i) => !flagged[i]);
  return kept.length > 0 ? kept : [...candidates];
}

/** Expected credit of picking uniformly among `candidates`. */
export function uniformCredit(candidates: readonly number[], gold: number): number {
  return candidates.includes(gold) ? 1 / candidates.length : 0;
}

/** Candidates with the highest score (ties kept). */
export function argmaxAmong(candidates: readonly number[], scores: readonly number[]): number[] {
  let best = Number.NEGATIVE_INFINITY;
  for (const i of candidates) if (scores[i]! > best) best = scores[i]!;
  return candidates.filter((i) => scores[i] === best);
}

export function allOptions(q: McqQuestion): number[] {
  return q.choices.map((_, i) => i);
}
