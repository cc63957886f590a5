/**
 * Which of a draft's candidate distractors to show, against one fitted discriminator: the
 * choosing step of the adversarial filter (adversarial-choose.ts runs its rounds). Pure functions
 * of the draft's numbers and the scorer, so a draft is chosen the same on any thread
 * (adversarial-options-thread.ts chooses half of a round's drafts on a worker).
 */
import { ADVERSARY_FEATURES, SALIENCE_COLUMN } from './audit/adversary-features.js';
import { type SalienceTable, distinctiveSalience } from './audit/adversary-salience.js';
import { type Scorer, type TreesScorerParts, treesScorer } from './audit/learners.js';
import { type FluencyRange, fluencyRange } from './adversarial-fluency.js';

/** One draft as the core reads it. */
export interface CoreDraft {
  id: string;
  language: string;
  group: string;
  /** Whether the question is scored (the test split) rather than a few-shot example: the audit judges the scored ones. */
  scored: boolean;
  /** Options shown (gold included). */
  options: number;
  /**
   * Raw feature rows, `FEATURE_COUNT` values each, one after another: 0 the gold, then the pinned
   * distractors, then the alternatives. Flat, as the similarities: a large task's drafts are
   * handed to the filter's worker (transferred, not copied) and to the options worker as a few
   * buffers each, not as a few hundred thousand small arrays.
   */
  raw: Float64Array<ArrayBuffer>;
  /** What the salience columns of `raw` are computed from, for the set shown. */
  salience: SalienceTable;
  /**
   * Word-set Jaccard between candidates (candidate i against j at i · candidates + j), and each
   * candidate's tool: the features that depend on which options are shown.
   */
  similarity: Float64Array<ArrayBuffer>;
  tools: Array<string | null>;
  pinned: number;
  /** Indices into `raw` of the distractors currently shown. */
  shown: number[];
  /** Each candidate's length in code points, whitespace collapsed (the audit's length rule). */
  lengths: number[];
  targetRank: number;
  /** Seeded coin (heads 1/K): whether the gold should be the audit's combined-rule pick. */
  goldMostSimilar: boolean;
  /** Seeded target (uniform over 0..K−1) for how many shown options are at least as long as the gold: length is a rule of its own, read both ways. */
  longerTarget: number;
  /** How many shown distractors should read at least as fluently as the gold under the context's word model (adversarial-fluency.ts). */
  fluentTarget: number;
  fold: number;
}

/** Values in each of `CoreDraft.raw`'s rows. */
export const FEATURE_COUNT = ADVERSARY_FEATURES.length;

/** Candidate `i`'s raw value of feature `column`. */
function feature(p: CoreDraft, i: number, column: number): number {
  return p.raw[i * FEATURE_COUNT + column]!;
}

/** How many candidates (gold, pinned, alternatives) the draft has. */
function candidateCount(p: CoreDraft): number {
  return p.lengths.length;
}

/** The Jaccard similarity of candidates `i` and `j`. */
function similarityOf(p: CoreDraft, i: number, j: number): number {
  return p.similarity[i * candidateCount(p) + j]!;
}

export const SIMILARITY = ADVERSARY_FEATURES.indexOf('similarity');
const MAX_SIMILARITY = ADVERSARY_FEATURES.indexOf('max_similarity');
const TOOL_SHARED = ADVERSARY_FEATURES.indexOf('tool_shared_by_options');

/** Raw feature rows of the options [gold, ...shown] as the audit would see them: set-dependent features recomputed for this set. */
export function rowsOf(p: CoreDraft, shown: readonly number[]): number[][] {
  const options = [0, ...shown];
  return options.map((i) => {
    const row: number[] = new Array<number>(FEATURE_COUNT);
    for (let c = 0, at = i * FEATURE_COUNT; c < FEATURE_COUNT; c++) row[c] = p.raw[at + c]!;
    let sim = 0;
    let maxSim = 0;
    let sameTool = 0;
    for (const j of options) {
      if (j === i) continue;
      sim += similarityOf(p, i, j);
      maxSim = Math.max(maxSim, similarityOf(p, i, j));
      if (p.tools[i] !== null && p.tools[j] === p.tools[i]) sameTool++;
    }
    row[SIMILARITY] = sim / (options.length - 1);
    row[MAX_SIMILARITY] = maxSim;
    row[TOOL_SHARED] = sameTool;
    const salience = distinctiveSalience(p.salience, i, options);
    for (let c = 0; c < salience.length; c++) row[SALIENCE_COLUMN + c] = salience[c]!;
    return row;
  });
}

/** Subsets of size `need` of `items`, lexicographic; at most `limit`. */
function* subsets(items: readonly number[], need: number, limit: number): Generator<number[]> {
  const idx = Array.from({ length: need }, (_, i) => i);
  if (need > items.length) return;
  for (let produced = 0; produced < limit; produced++) {
    yield idx.map((i) => items[i]!);
    let i = need - 1;
    while (i >= 0 && idx[i] === items.length - need + i) i--;
    if (i < 0) return;
    idx[i]!++;
    for (let j = i + 1; j < need; j++) idx[j] = idx[j - 1]! + 1;
  }
}

/** Chooses each draft against its fold's trees (`choose`) and returns the candidates each now shows. */
export function chooseShown(drafts: readonly CoreDraft[], models: readonly TreesScorerParts[]): number[][] {
  const scorers = models.map(treesScorer);
  return drafts.map((p) => {
    choose(p, scorers[p.fold]!);
    return p.shown;
  });
}

/**
 * Shows the pinned distractors and the alternatives that put the gold at its target rank under
 * the model (as near as the candidates allow), and among those the set whose distractors the
 * model finds most gold-like (smallest softmax share of the gold).
 */
function choose(p: CoreDraft, model: Scorer): void {
  const pinned = Array.from({ length: p.pinned }, (_, i) => i + 1);
  const need = p.options - 1 - p.pinned;
  const alternatives = Array.from({ length: candidateCount(p) - 1 - p.pinned }, (_, i) => i + 1 + p.pinned);
  let best: { shown: number[]; miss: number; share: number } | null = null;
  for (const extra of subsets(alternatives, need, 2000)) {
    const shown = [...pinned, ...extra];
    // The audit's combined rule picks the option most similar to the others: the gold may be it
    // only as often as chance, and that gate comes before the rank.
    const combined = 5 * Math.abs(combinedCredit(p, shown) - (p.goldMostSimilar ? 1 : 0));
    const longer = 2 * Math.abs(longerThanGold(p, shown) - p.longerTarget);
    const fluent = 2 * Math.abs(atLeastAsFluent(p, shown) - p.fluentTarget);
    // The rank term is at least 0 and rounding is monotone, so this sum is a lower bound on the
    // miss: a set that cannot reach the best miss so far is not scored.
    if (best && combined + longer + fluent > best.miss) continue;
    const scores = model(rowsOf(p, shown));
    const above = scores.slice(1).filter((v) => v > scores[0]!).length;
    const miss = Math.abs(above - p.targetRank) + combined + longer + fluent;
    const top = Math.max(...scores);
    const sum = scores.reduce((s, v) => s + Math.exp(v - top), 0);
    const share = Math.exp(scores[0]! - top) / sum;
    if (!best || miss < best.miss || (miss === best.miss && share < best.share - 1e-12)) best = { shown, miss, share };
  }
  if (best) p.shown = best.shown;
}

const RELEVANCE = ADVERSARY_FEATURES.indexOf('history_overlap');
export const LENGTH = ADVERSARY_FEATURES.indexOf('log_chars');
/** 1 on an option that finishes the run (adversary-features.ts). */
export const FINISH_MARKER = ADVERSARY_FEATURES.indexOf('finish_marker');

/** The audit's combined rule on these options (copies and off-tool options are never shown): most similar, then most relevant, then longest; the gold's share of the ties. */
export function combinedCredit(p: CoreDraft, shown: readonly number[]): number {
  const options = [0, ...shown];
  let candidates = options;
  const keep = (score: (i: number) => number) => {
    const best = Math.max(...candidates.map(score));
    candidates = candidates.filter((i) => score(i) === best);
  };
  keep((i) => options.reduce((s, j) => s + (j === i ? 0 : similarityOf(p, i, j)), 0) / (options.length - 1));
  keep((i) => feature(p, i, RELEVANCE));
  keep((i) => feature(p, i, LENGTH));
  return candidates.includes(0) ? 1 / candidates.length : 0;
}

/** How many of the shown distractors are at least as long as the gold (whitespace collapsed; a tie shares the longest-option credit). */
function longerThanGold(p: CoreDraft, shown: readonly number[]): number {
  const gold = p.lengths[0]!;
  return shown.filter((i) => p.lengths[i]! >= gold).length;
}

export const FLUENCY = ADVERSARY_FEATURES.indexOf('bigram_fluency');

/** The fewest and most shown distractors at least as fluent as the gold that this draft's candidates allow. */
export function fluencyRangeOf(p: CoreDraft): FluencyRange {
  const f = (i: number) => feature(p, i, FLUENCY);
  const pinned = Array.from({ length: p.pinned }, (_, i) => f(i + 1));
  const alternatives = Array.from({ length: candidateCount(p) - 1 - p.pinned }, (_, i) => f(i + 1 + p.pinned));
  const need = p.options - 1 - p.pinned;
  return { id: p.id, language: p.language, options: p.options, ...fluencyRange(f(0), pinned, alternatives, need) };
}

/**
 * How many shown distractors read at least as fluently as the gold under the context's bigram
 * model. A real next step writes its query in the words and word order the context already uses,
 * so "pick the most fluent option" is the strongest single surface cue on real builds; aimed at
 * the dealt target, it finds the gold 1/K of the time.
 */
function atLeastAsFluent(p: CoreDraft, shown: readonly number[]): number {
  const gold = feature(p, 0, FLUENCY);
  return shown.filter((i) => feature(p, i, FLUENCY) >= gold).length;
}
