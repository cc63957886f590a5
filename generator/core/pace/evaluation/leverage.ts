/**
 * Is a checkpoint inside what the training models span, in the embedding the predictor uses?
 * The per-coordinate box (skill.ts) misses a point that is ordinary on every coordinate but
 * unlike every model jointly; the Mahalanobis distance to the training models' mean, under their
 * covariance, does not. The yardstick is the pool's own leave-one-out distribution: each
 * training model's distance to the other models. A checkpoint farther than the farthest of
 * those (times `leverageTolerance`) lies where the regression never saw a model.
 */
import { solveSpd } from '../numerics/dense.js';

export interface LeverageModel {
  k: number;
  mean: number[];
  /** k × k row-major covariance of the training coordinates, ridge-regularised. */
  covariance: number[];
  /** Largest leave-one-out Mahalanobis distance among the training models. */
  threshold: number;
}

/**
 * A new model exchangeable with n training models lies beyond the largest of their n
 * leave-one-out distances with probability about 1/(n + 1); the margin keeps such ordinary
 * checkpoints from being flagged while a checkpoint far outside the pool still is.
 */
export const leverageTolerance = 1.25;
/** Ridge added to the covariance's diagonal, relative to its mean variance (k may approach n). */
const RIDGE = 1e-3;

function covariance(u: Float64Array, k: number, rows: number[]): { mean: Float64Array; cov: Float64Array } {
  const mean = new Float64Array(k);
  for (const i of rows) for (let j = 0; j < k; j++) mean[j]! += u[i * k + j]! / rows.length;
  const cov = new Float64Array(k * k);
  for (const i of rows)
    for (let a = 0; a < k; a++) {
      const da = u[i * k + a]! - mean[a]!;
      for (let b = 0; b < k; b++) cov[a * k + b]! += (da * (u[i * k + b]! - mean[b]!)) / Math.max(1, rows.length - 1);
    }
  let trace = 0;
  for (let a = 0; a < k; a++) trace += cov[a * k + a]!;
  const ridge = RIDGE * (trace / k || 1);
  for (let a = 0; a < k; a++) cov[a * k + a]! += ridge;
  return { mean, cov };
}

function distance(mean: ArrayLike<number>, cov: Float64Array, k: number, u: ArrayLike<number>): number {
  const d = Float64Array.from({ length: k }, (_, j) => (u[j] as number) - (mean[j] as number));
  const x = solveSpd(cov, k, d);
  if (!x) return Infinity;
  let q = 0;
  for (let j = 0; j < k; j++) q += d[j]! * x[j]!;
  return Math.sqrt(Math.max(0, q));
}

/** The leverage model of n training coordinates (n × k); null when there are too few models to tell. */
export function leverageModel(trainU: Float64Array, k: number): LeverageModel | null {
  const n = k > 0 ? trainU.length / k : 0;
  if (k === 0 || n < k + 3) return null;
  let threshold = 0;
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n; i++) {
    const { mean, cov } = covariance(trainU, k, all.filter((r) => r !== i));
    threshold = Math.max(threshold, distance(mean, cov, k, trainU.subarray(i * k, (i + 1) * k)));
  }
  if (!Number.isFinite(threshold)) return null;
  const { mean, cov } = covariance(trainU, k, all);
  return { k, mean: Array.from(mean), covariance: Array.from(cov), threshold };
}

/** Mahalanobis distance of coordinates `u` under the training models' mean and covariance. */
export function leverageDistance(model: LeverageModel, u: ArrayLike<number>): number {
  return distance(model.mean, Float64Array.from(model.covariance), model.k, u);
}
