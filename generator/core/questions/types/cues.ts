import type { Rng } from '../../kernel/rng.js';
import { words } from '../audit/text.js';
import { jaccard, relevanceShare } from '../audit/features.js';

const wordsOf = (text: string): Set<string> => new Set(words(text));

/**
 * Topic relevance exactly as the audit's `topic_relevance` rule scores it (audit/features.ts):
 * the share of an option's distinct words (the audit's tokenizer) that occur in the question
 * segment. Builder and audit share `relevanceShare` and `jaccard`, so balancing optimises the cue
 * that is measured.
 */
export function topicShares(options: readonly string[], context: ReadonlySet<string>): number[] {
  return options.map((o) => relevanceShare(wordsOf(o), context));
}

/** 1/ties when option 0 (the gold) is a top option by `shares`, else 0. */
function topicCreditOf(shares: readonly number[]): number {
  const best = Math.max(...shares);
  if (shares[0]! < best - 1e-12) return 0;
  return 1 / shares.filter((x) => x >= best - 1e-12).length;
}

/** The audit's credit for "pick the most on-topic option" on option 0 (the gold): 1/ties when it is a top option, else 0. */
export function topicCredit(options: readonly string[], context: ReadonlySet<string>): number {
  return topicCreditOf(topicShares(options, context));
}

/** Credit of option 0 for "most similar to the others" (mean Jaccard), given the pairwise Jaccard `sim(i, j)` of `n` options. */
function similarCreditOf(n: number, sim: (i: number, j: number) => number): number {
  const scores = Array.from({ length: n }, (_, i) => {
    let sum = 0;
    for (let j = 0; j < n; j++) if (j !== i) sum += sim(i, j);
    return sum / Math.max(1, n - 1);
  });
  const best = Math.max(...scores);
  if (scores[0]! !== best) return 0;
  return 1 / scores.filter((x) => x === best).length;
}

/** The audit's credit for "pick the option most similar to the others" (mean word Jaccard, audit tokens) on option 0. */
export function similarCredit(options: readonly string[]): number {
  const sets = options.map(wordsOf);
  return similarCreditOf(sets.length, (i, j) => jaccard(sets[i]!, sets[j]!));
}

/**
 * With the least (m) and most (M) credit a choice of distractors allows, aiming at M with
 * probability p and at m otherwise, p·M + (1−p)·m = chance makes the expected credit chance.
 */
function aimAtChance(credits: readonly number[], draw: number, chance: number): number {
  const m = Math.min(...credits);
  const M = Math.max(...credits);
  const p = M - m > 1e-12 ? Math.min(1, Math.max(0, (chance - m) / (M - m))) : 1;
  return draw < p ? M : m;
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
  // Each option is tokenised once and each pair's Jaccard computed once: the loop below tries
  // up to 4000 subsets of the same pool. Option 0 is the gold, option i + 1 is pool[i].
  const sets = [wordsOf(gold), ...pool.map((p) => wordsOf(p.value.text))];
  const shares = context ? sets.map((set) => relevanceShare(set, context)) : null;
  const pairs = new Map<number, number>();
  const sim = (a: number, b: number) => {
    const key = Math.min(a, b) * sets.length + Math.max(a, b);
    let v = pairs.get(key);
    if (v === undefined) pairs.set(key, (v = jaccard(sets[a]!, sets[b]!)));
    return v;
  };
  const candidates: Array<{ subset: T[]; options: number[]; longestOk: boolean; credit: number }> = [];
  for (const combo of subsetsOf(order.length, Math.min(need, order.length), 4000)) {
    const picks = combo.map((i) => order[i]!);
    const subset = picks.map((i) => pool[i]!);
    const options = [0, ...picks.map((i) => i + 1)];
    candidates.push({
      subset,
      options,
      longestOk: (longestOption([gold, ...subset.map((s) => s.value.text)]) === 0) === wantLongest,
      credit: shares ? topicCreditOf(options.map((o) => shares[o]!)) : 0,
    });
  }
  // Topic: the audit credits the gold 1/ties when it is among the most on-topic options; its
  // expected credit is aimed at chance (`aimAtChance`). When even the least credit the pool
  // allows exceeds chance, the gold is more on-topic than any choice of distractors can hide.
  let target: number | null = null;
  let topicForced = false;
  if (context && candidates.length > 0) {
    const credits = candidates.map((c) => c.credit);
    if (Math.min(...credits) > 1 / k + 1e-9) topicForced = true;
    target = aimAtChance(credits, topicDraw, 1 / k);
  }
  const onTarget = candidates.filter((c) => target === null || Math.abs(c.credit - target) < 1e-9);
  // Similarity the same way, among the topic-balanced subsets: aim the audit's most-similar
  // credit at chance in expectation rather than a coin that often cannot be met.
  const simCredits = onTarget.map((c) => similarCreditOf(c.options.length, (i, j) => sim(c.options[i]!, c.options[j]!)));
  const simTarget = onTarget.length > 0 ? aimAtChance(simCredits, similarDraw, 1 / k) : null;
  const onSimilar = onTarget.filter((_, i) => simTarget === null || Math.abs(simCredits[i]! - simTarget) < 1e-9);
  const best = onSimilar.find((c) => c.longestOk) ?? onSimilar[0] ?? onTarget[0] ?? candidates[0];
  return { picked: best ? best.subset : pool.slice(0, need), topicForced };
}
