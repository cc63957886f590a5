import type { Rng } from '../../kernel/rng.js';
import { words } from '../audit/text.js';

/** Words of an option for similarity: lower-cased word tokens, CJK characters one by one. */
export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu)?.flatMap((w) => (/[\u3400-\u9fff]/.test(w) ? [...w] : [w])) ?? []);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Index of the option most similar (mean word Jaccard) to the others; ties to the first. */
export function mostSimilarToOthers(options: readonly string[]): number {
  const sets = options.map(wordSet);
  let best = 0;
  let bestScore = -1;
  sets.forEach((s, i) => {
    const score = sets.reduce((acc, o, j) => (j === i ? acc : acc + jaccard(s, o)), 0);
    if (score > bestScore + 1e-12) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

/**
 * Topic relevance exactly as the audit's `topic_relevance` rule scores it (audit/features.ts):
 * the share of an option's distinct words (the audit's tokenizer) that occur in the question
 * segment. Builder and audit must agree, or balancing optimises a different cue than the one measured.
 */
export function topicShares(options: readonly string[], context: ReadonlySet<string>): number[] {
  return options.map((o) => {
    const set = new Set(words(o));
    if (set.size === 0) return 0;
    let shared = 0;
    for (const w of set) if (context.has(w)) shared++;
    return shared / set.size;
  });
}

/** The audit's credit for "pick the most on-topic option" on option 0 (the gold): 1/ties when it is a top option, else 0. */
export function topicCredit(options: readonly string[], context: ReadonlySet<string>): number {
  const shares = topicShares(options, context);
  const best = Math.max(...shares);
  if (shares[0]! < best - 1e-12) return 0;
  return 1 / shares.filter((x) => x >= best - 1e-12).length;
}

/** The audit's credit for "pick the option most similar to the others" (mean word Jaccard, audit tokens) on option 0. */
export function similarCredit(options: readonly string[]): number {
  const sets = options.map((o) => new Set(words(o)));
  const scores = sets.map((a, i) => {
    let sum = 0;
    sets.forEach((b, j) => {
      if (j === i) return;
      let shared = 0;
      for (const w of a) if (b.has(w)) shared++;
      const union = a.size + b.size - shared;
      sum += union === 0 ? 0 : shared / union;
    });
    return sum / Math.max(1, sets.length - 1);
  });
  const best = Math.max(...scores);
  if (scores[0]! !== best) return 0;
  return 1 / scores.filter((x) => x === best).length;
}

/** The audit's word set of the question segment text (goal, steps and observations shown). */
export function topicContext(texts: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const t of texts) for (const w of words(t)) out.add(w);
  return out;
}

/** Index of the longest option; ties to the first. */
export function longestOption(options: readonly string[]): number {
  let best = 0;
  options.forEach((o, i) => {
    if (o.length > options[best]!.length) best = i;
  });
  return best;
}

/** Subsets of size `need` of `0..n-1`, lexicographic; at most `limit` of them. */
function* subsetsOf(n: number, need: number, limit: number): Generator<number[]> {
  const idx = Array.from({ length: need }, (_, i) => i);
  for (let produced = 0; produced < limit; produced++) {
    yield idx.slice();
    let i = need - 1;
    while (i >= 0 && idx[i] === n - need + i) i--;
    if (i < 0) return;
    idx[i]!++;
    for (let j = i + 1; j < need; j++) idx[j] = idx[j - 1]! + 1;
  }
}

export interface CueChoice<T> {
  picked: T[];
  /** Whatever distractors the pool offers, the audit's topic rule would credit the gold above chance (a cue the pool cannot undo). */
  topicForced: boolean;
}

/**
 * Chooses `need` distractors from a larger pool so that the surface rules (most similar to the
 * others, longest option, most on-topic given the context words) single out the gold about as
 * often as chance would: for similarity and length a seeded coin (heads with probability
 * 1 / options) says whether the gold should be that rule's pick; for topic relevance the
 * target credit is drawn so its expectation is chance (below). Topic comes first: it is the
 * cue borrowed steps carry, and the audit measures it with the same scoring (`topicShares`). Perturbations of the
 * gold make the gold the centre of its options; this undoes that cue without making the gold
 * systematically the odd one out (which would be a cue of its own).
 */
export function balanceCue<T extends { value: { text: string } }>(rng: Rng, gold: string, pool: readonly T[], need: number, context?: ReadonlySet<string>): CueChoice<T> {
  const k = need + 1;
  const similarDraw = rng.next();
  const wantLongest = rng.int(k) === 0;
  const topicDraw = rng.next();
  // The first `need` of the pool stay the first candidate (operator mix as drawn); the rest are tried in a seeded order.
  const order = [...Array.from({ length: Math.min(need, pool.length) }, (_, i) => i), ...rng.shuffle(Array.from({ length: Math.max(0, pool.length - need) }, (_, i) => i + need))];
  const candidates: Array<{ subset: T[]; longestOk: boolean; credit: number }> = [];
  for (const combo of subsetsOf(order.length, Math.min(need, order.length), 4000)) {
    const subset = combo.map((i) => pool[order[i]!]!);
    const options = [gold, ...subset.map((s) => s.value.text)];
    candidates.push({
      subset,
      longestOk: (longestOption(options) === 0) === wantLongest,
      credit: context ? topicCredit(options, context) : 0,
    });
  }
  // Topic: the audit credits the gold 1/ties when it is among the most on-topic options. With
  // the least (m) and most (M) credit the pool allows, aiming at M with probability p and at m
  // otherwise, p·M + (1−p)·m = 1/k makes the expected credit exactly chance. When even m
  // exceeds chance the gold is more on-topic than any choice of distractors can hide.
  let target: number | null = null;
  let topicForced = false;
  if (context && candidates.length > 0) {
    const credits = candidates.map((c) => c.credit);
    const m = Math.min(...credits);
    const M = Math.max(...credits);
    const chance = 1 / k;
    if (m > chance + 1e-9) topicForced = true;
    const p = M - m > 1e-12 ? Math.min(1, Math.max(0, (chance - m) / (M - m))) : 1;
    target = topicDraw < p ? M : m;
  }
  const onTarget = candidates.filter((c) => target === null || Math.abs(c.credit - target) < 1e-9);
  // Similarity the same way, among the topic-balanced subsets: aim the audit's most-similar
  // credit (`similarCredit`) at chance in expectation rather than a coin that often cannot be met.
  const simCredits = onTarget.map((c) => similarCredit([gold, ...c.subset.map((s) => s.value.text)]));
  let simTarget: number | null = null;
  if (onTarget.length > 0) {
    const m = Math.min(...simCredits);
    const M = Math.max(...simCredits);
    const p = M - m > 1e-12 ? Math.min(1, Math.max(0, (1 / k - m) / (M - m))) : 1;
    simTarget = similarDraw < p ? M : m;
  }
  const onSimilar = onTarget.filter((_, i) => simTarget === null || Math.abs(simCredits[i]! - simTarget) < 1e-9);
  const best = onSimilar.find((c) => c.longestOk) ?? onSimilar[0] ?? onTarget[0] ?? candidates[0];
  return { picked: best ? best.subset : pool.slice(0, need), topicForced };
}
