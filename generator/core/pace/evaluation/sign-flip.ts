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
  const d = Array.from(differences);
  const n = d.length;
  const observed = d.reduce((a, b) => a + b, 0);
  const abs = d.map(Math.abs);
  const total = abs.reduce((a, b) => a + b, 0);
  const slack = TIE * Math.max(1, total);
  let less = 0;
  let greater = 0;
  let count = 0;
  const exact = n <= exactUpTo;
  if (n === 0) return { models: 0, meanDifference: NaN, pLess: 1, pGreater: 1, pTwoSided: 1, exact: true };
  if (exact) {
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
    count = combos;
  } else {
    const rng = new Rng(SIGN_FLIP_STREAM);
    for (let r = 0; r < signFlipResamples; r++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += rng.next() < 0.5 ? abs[i]! : -abs[i]!;
      if (sum <= observed + slack) less++;
      if (sum >= observed - slack) greater++;
    }
    // The observed assignment counts as one of the draws (a valid Monte Carlo p-value).
    less++;
    greater++;
    count = signFlipResamples + 1;
  }
  const pLess = less / count;
  const pGreater = greater / count;
  return { models: n, meanDifference: observed / n, pLess, pGreater, pTwoSided: Math.min(1, 2 * Math.min(pLess, pGreater)), exact };
}
