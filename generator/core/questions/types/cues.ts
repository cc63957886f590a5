import type { Rng } from '../../kernel/rng.js';

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

/** Index of the option with the largest share of its words in the context (ties to the first). */
export function mostOnTopic(options: readonly string[], context: ReadonlySet<string>): number {
  const share = (o: string) => {
    const w = [...wordSet(o)].filter((x) => x.length >= 3 && !STRUCTURE_WORDS.has(x));
    return w.length ? w.filter((x) => context.has(x)).length / w.length : 0;
  };
  let best = 0;
  let bestShare = -1;
  options.forEach((o, i) => {
    const s = share(o);
    if (s > bestShare + 1e-12) {
      best = i;
      bestShare = s;
    }
  });
  return best;
}

/** Keys of the rendered JSON step form: present in every option, they say nothing about topic. */
const STRUCTURE_WORDS = new Set(['planning', 'execution', 'name', 'args', 'text', 'url', 'question']);

/** Index of the longest option; ties to the first. */
export function longestOption(options: readonly string[]): number {
  let best = 0;
  options.forEach((o, i) => {
    if (o.length > options[best]!.length) best = i;
  });
  return best;
}

/**
 * Chooses `need` distractors from a larger pool so that the surface rules (most similar to the
 * others, longest option, most on-topic given the context words) single out the gold about as often as chance would: for each rule a
 * seeded coin (heads with probability 1 / options) says whether the gold should be that rule's
 * pick, and the first of a fixed number of seeded subsets that agrees with the coins is taken.
 * Perturbations of the gold make the gold the centre of its options; this undoes that cue
 * without making the gold systematically the odd one out (which would be a cue of its own).
 */
export function balanceCue<T extends { value: { text: string } }>(rng: Rng, gold: string, pool: readonly T[], need: number, context?: ReadonlySet<string>): T[] {
  if (pool.length <= need) return pool.slice(0, need);
  const k = need + 1;
  const wantSimilar = rng.int(k) === 0;
  const wantLongest = rng.int(k) === 0;
  const wantTopical = rng.int(k) === 0;
  const first = pool.slice(0, need);
  let fallback: T[] | null = null;
  let bestFallback: T[] | null = null;
  for (let attempt = 0; attempt < 48; attempt++) {
    const subset = attempt === 0 ? first : rng.shuffle(pool).slice(0, need);
    const options = [gold, ...subset.map((s) => s.value.text)];
    const similarOk = (mostSimilarToOthers(options) === 0) === wantSimilar;
    const longestOk = (longestOption(options) === 0) === wantLongest;
    const topicalOk = !context || (mostOnTopic(options, context) === 0) === wantTopical;
    if (similarOk && longestOk && topicalOk) return subset;
    if (similarOk && topicalOk && !bestFallback) bestFallback = subset;
    if (similarOk && !fallback) fallback = subset;
  }
  return bestFallback ?? fallback ?? first;
}
