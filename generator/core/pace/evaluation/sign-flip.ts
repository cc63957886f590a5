/**
 * Paired sign-flip (permutation) test over models. Under "the two predictors err alike", each
 * model's difference d_i = |error of A| − |error of B| is as likely to carry either sign, so the
 * observed Σ d_i is compared with Σ ±|d_i| over sign assignments. Up to `exactUpTo` models every
 * assignment is enumerated (exact p); above that a fixed number of assignments is drawn from a
 * fixed stream, so the p-value never depends on the user's `--seed`: the same predictions give
 * the same verdict in `fit`, `evaluate` and `check`, on every run.
 */
import { Rng } from '../../kernel/rng.js';

export const exactUpTo = 20;
export const signFlipResamples = 100_000;
/** Fewer models than this cannot demonstrate skill: the test has too little power to be trusted. */
export const minimumModelsForSkill = 10;
const SIGN_FLIP_STREAM = 'aptpace/sign-flip/v1';

export interface SignFlipResult {
  models: number;
  /** Σ d_i / n. */
  meanDifference: number;
  /** P(Σ ±|d| ≤ observed): small when A errs less than B. */
  pLess: number;
  /** P(Σ ±|d| ≥ observed): small when A errs more than B. */
  pGreater: number;
  /** Two-sided: min(1, 2·min(pLess, pGreater)). */
  pTwoSided: number;
  exact: boolean;
}

/** Relative slack for ties: a permuted sum equal to the observed one up to rounding counts as equal. */
const TIE = 1e-12;

export function signFlipTest(differences: ArrayLike<number>): SignFlipResult {
  return signFlipTests([differences])[0] as SignFlipResult;
}

/**
 * Several tests over the same models at once. Above `exactUpTo` every test reads the same fixed
 * stream, so the sign assignments are drawn once and shared: each result is bit-identical to
 * `signFlipTest` on its own differences, at the cost of one stream instead of one per test (the
 * selection among the shippable forms runs three such tests per fit).
 */
export function signFlipTests(differenceSets: ReadonlyArray<ArrayLike<number>>): SignFlipResult[] {
  const n = differenceSets[0]?.length ?? 0;
  if (n <= exactUpTo) return differenceSets.map(exactSignFlipTest);
  if (differenceSets.some((d) => d.length !== n)) throw new Error('signFlipTests: every set must cover the same models');
  const masks = signMasks(n);
  const bytes = masks.length / signFlipResamples;
  const sets = differenceSets.map((differences) => {
    const d = Array.from(differences);
    const observed = d.reduce((a, b) => a + b, 0);
    const abs = Float64Array.from(d, Math.abs);
    const total = abs.reduce((a, b) => a + b, 0);
    // The observed assignment counts as one of the draws (a valid Monte Carlo p-value).
    return { observed, table: byteSums(abs, bytes), slack: TIE * Math.max(1, total), less: 1, greater: 1 };
  });
  // Each draw's sum is one table lookup per eight models: the models' signs for a draw are the
  // bits of its mask bytes, and table[c·256 + b] is the signed sum of the eight |d| of byte c
  // under the signs b. The sums differ from a model-by-model sum only by rounding, far below the
  // tie slack.
  for (const t of sets) {
    const table = t.table;
    const high = t.observed + t.slack;
    const low = t.observed - t.slack;
    let less = 0;
    let greater = 0;
    for (let r = 0, o = 0; r < signFlipResamples; r++, o += bytes) {
      let sum = 0;
      for (let c = 0; c < bytes; c++) sum += table[(c << 8) | masks[o + c]!]!;
      if (sum <= high) less++;
      if (sum >= low) greater++;
    }
    t.less += less;
    t.greater += greater;
  }
  const count = signFlipResamples + 1;
  return sets.map((t) => {
    const pLess = t.less / count;
    const pGreater = t.greater / count;
    return { models: n, meanDifference: t.observed / n, pLess, pGreater, pTwoSided: Math.min(1, 2 * Math.min(pLess, pGreater)), exact: false };
  });
}

/**
 * The fixed stream's sign assignments for `n` models, drawn once per process and shared: byte c
 * of draw r holds the signs of models 8c … 8c+7, bit set for −1 (the draw order is the stream's:
 * model by model within a draw, draw by draw).
 */
const maskCache = new Map<number, Uint8Array>();
function signMasks(n: number): Uint8Array {
  const cached = maskCache.get(n);
  if (cached) return cached;
  const bytes = Math.ceil(n / 8);
  const masks = new Uint8Array(signFlipResamples * bytes);
  const rng = new Rng(SIGN_FLIP_STREAM);
  // A draw u = x / 2³² is ≥ 0.5 exactly when x ≥ 2³¹.
  for (let r = 0, o = 0; r < signFlipResamples; r++, o += bytes) rng.fillSignBits(masks, o, n);
  // A handful of model counts occur in one run (the pool, the pool less a fold); keep the latest few.
  if (maskCache.size >= 8) maskCache.delete(maskCache.keys().next().value as number);
  maskCache.set(n, masks);
  return masks;
}

/** table[c·256 + b]: Σ over the models of byte c of ±|d_i|, minus where bit i of b is set. */
function byteSums(abs: Float64Array, bytes: number): Float64Array {
  const table = new Float64Array(bytes * 256);
  for (let c = 0; c < bytes; c++) {
    const base = c << 8;
    let all = 0;
    for (let i = c * 8; i < Math.min(abs.length, c * 8 + 8); i++) all += abs[i]!;
    table[base] = all;
    for (let b = 1; b < 256; b++) {
      const bit = 31 - Math.clz32(b & -b);
      const i = c * 8 + bit;
      table[base + b] = table[base + (b & (b - 1))]! - (i < abs.length ? 2 * abs[i]! : 0);
    }
  }
  return table;
}

/** Every assignment of signs (n ≤ `exactUpTo`). */
function exactSignFlipTest(differences: ArrayLike<number>): SignFlipResult {
  const d = Array.from(differences);
  const n = d.length;
  if (n === 0) return { models: 0, meanDifference: NaN, pLess: 1, pGreater: 1, pTwoSided: 1, exact: true };
  const observed = d.reduce((a, b) => a + b, 0);
  const abs = d.map(Math.abs);
  const total = abs.reduce((a, b) => a + b, 0);
  const slack = TIE * Math.max(1, total);
  let less = 0;
  let greater = 0;
  // Gray code: each step flips one sign, so the sum updates in O(1).
  let sum = total;
  const signs = new Int8Array(n).fill(1);
  const combos = 2 ** n;
  for (let k = 0; k < combos; k++) {
    if (k > 0) {
      const bit = 31 - Math.clz32(k & -k);
      sum -= 2 * signs[bit]! * abs[bit]!;
      signs[bit] = -signs[bit]! as 1 | -1;
    }
    if (sum <= observed + slack) less++;
    if (sum >= observed - slack) greater++;
  }
  const pLess = less / combos;
  const pGreater = greater / combos;
  return { models: n, meanDifference: observed / n, pLess, pGreater, pTwoSided: Math.min(1, 2 * Math.min(pLess, pGreater)), exact: true };
}
