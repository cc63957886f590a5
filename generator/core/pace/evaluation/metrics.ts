/** Leave-one-model-out metrics, with sklearn/scipy definitions. */
import { pearson, spearman } from '../numerics/rank.js';

export interface AbsoluteMetrics {
  mae: number;
  spearman: number;
  pearson: number;
  /** sklearn.metrics.r2_score: 1 − SS_res / SS_tot around the mean of the truth. */
  r2: number;
  n: number;
}

export function absoluteMetrics(truth: ArrayLike<number>, predicted: ArrayLike<number>): AbsoluteMetrics {
  const { mae, r2 } = errorMetrics(truth, predicted);
  return { mae, spearman: spearman(truth, predicted), pearson: pearson(truth, predicted), r2, n: truth.length };
}

/** MAE and R² alone (no rankings): what a comparison needs of a predictor whose order it ignores. */
export function errorMetrics(truth: ArrayLike<number>, predicted: ArrayLike<number>): { mae: number; r2: number } {
  const n = truth.length;
  let ae = 0;
  let mt = 0;
  for (let i = 0; i < n; i++) {
    ae += Math.abs((truth[i] as number) - (predicted[i] as number));
    mt += truth[i] as number;
  }
  mt /= n;
  let ssRes = 0;
  let ssTot = 0;
  for (let i = 0; i < n; i++) {
    ssRes += ((truth[i] as number) - (predicted[i] as number)) ** 2;
    ssTot += ((truth[i] as number) - mt) ** 2;
  }
  return { mae: ae / n, r2: ssTot > 0 ? 1 - ssRes / ssTot : NaN };
}

/**
 * Pairwise accuracy: over (held-out k, training j) with y_k ≠ y_j, the share where the predicted
 * margin has the sign of y_k − y_j. A zero margin counts half (a coin flip).
 */
export interface PairTally {
  correct: number;
  pairs: number;
}

export function addPair(tally: PairTally, trueDiff: number, predictedMargin: number): void {
  if (trueDiff === 0) return;
  tally.pairs++;
  if (predictedMargin === 0) tally.correct += 0.5;
  else if (Math.sign(predictedMargin) === Math.sign(trueDiff)) tally.correct++;
}

export function pairAccuracy(t: PairTally): number {
  return t.pairs ? t.correct / t.pairs : NaN;
}
