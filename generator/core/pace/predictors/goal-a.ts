/**
 * Goal A (absolute score), PACE's `regression/absolute.py` + `stats.ols_1d`:
 * per embedding dimension c, ρ_c = Spearman(U[:,c], y) on the bootstrap pool; the embedding is
 * collapsed to x = U·w with w = ρ/Σ|ρ|; y is regressed on x by 1-D OLS with intercept.
 *
 * The pool tiles each training model's embedding B times against its B bootstrap targets.
 * Both statistics are computed exactly without materialising it: pooled ranks of a tiled x
 * follow from the n distinct values, and pooled OLS equals OLS on each model's bootstrap mean.
 */
import { averageRanks } from '../numerics/rank.js';

export interface PoolStats {
  n: number;
  replicates: number;
  /** Σ_b (rank(y_ib) − mean rank) per training model. */
  rankSums: Float64Array;
  /** Σ over the pool of (rank − mean rank)². */
  rankSsq: number;
  /** Per model mean over replicates. */
  yMeans: Float64Array;
  /** n × B replicates (B = 1 holding y itself when there is no bootstrap). */
  yBoot: Float64Array;
  yMin: number;
  yMax: number;
  yMean: number;
}

export function poolStats(y: Float64Array, yBoot: Float64Array | null, replicates: number): PoolStats {
  const n = y.length;
  const B = yBoot ? replicates : 1;
  const pool = yBoot ?? y;
  const ranks = averageRanks(pool);
  const mid = (pool.length + 1) / 2;
  const rankSums = new Float64Array(n);
  const yMeans = new Float64Array(n);
  let rankSsq = 0;
  let yMin = Infinity;
  let yMax = -Infinity;
  let total = 0;
  for (let i = 0; i < n; i++) {
    let rs = 0;
    let ys = 0;
    for (let b = 0; b < B; b++) {
      const r = (ranks[i * B + b] as number) - mid;
      rs += r;
      rankSsq += r * r;
      const v = pool[i * B + b] as number;
      ys += v;
      if (v < yMin) yMin = v;
      if (v > yMax) yMax = v;
    }
    rankSums[i] = rs;
    yMeans[i] = ys / B;
    total += ys;
  }
  return { n, replicates: B, rankSums, rankSsq, yMeans, yBoot: pool, yMin, yMax, yMean: total / (n * B) };
}

/** Spearman ρ between x tiled B times and the pooled y. */
export function pooledSpearman(x: ArrayLike<number>, stats: PoolStats): number {
  const rx = averageRanks(x);
  const n = stats.n;
  const B = stats.replicates;
  // A value's pooled rank: B·(rank among n − ½) + ½ for a tie-free value; ties scale the same way.
  const mid = (n + 1) / 2;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    const d = B * ((rx[i] as number) - mid);
    sxy += d * (stats.rankSums[i] as number);
    sxx += B * d * d;
  }
  if (!(sxx > 0) || !(stats.rankSsq > 0)) return NaN;
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * stats.rankSsq)));
}

/**
 * Coordinates rounded to a grid of 1e-9·max|x|. Models identical on the selected items, or
 * placed symmetrically, have mathematically equal coordinates that come out of the SVD a few
 * ulps apart, and a rank correlation would order them by rounding noise; on the grid they tie,
 * as they should. Real differences between models are many orders of magnitude larger.
 */
export function snapTies(x: Float64Array): Float64Array {
  let scale = 0;
  for (const v of x) scale = Math.max(scale, Math.abs(v));
  if (!(scale > 0) || !Number.isFinite(scale)) return x;
  const step = 1e-9 * scale;
  return x.map((v) => Math.round(v / step) * step);
}

export interface GoalAFit {
  /** Per-dimension weights w = ρ/Σ|ρ|. */
  weights: number[];
  intercept: number;
  slope: number;
  /** Guard range and fallback (pool min, max, mean). */
  yMin: number;
  yMax: number;
  yMean: number;
  /** One (intercept, slope) per bootstrap replicate, for prediction intervals. */
  replicateIntercepts: number[];
  replicateSlopes: number[];
}

export function fitGoalA(u: Float64Array, k: number, stats: PoolStats): GoalAFit {
  const n = stats.n;
  const rho: number[] = [];
  const col = new Float64Array(n);
  for (let c = 0; c < k; c++) {
    for (let i = 0; i < n; i++) col[i] = u[i * k + c] as number;
    rho.push(pooledSpearman(snapTies(col), stats));
  }
  let norm = 0;
  for (const r of rho) if (Number.isFinite(r)) norm += Math.abs(r);
  const weights = rho.map((r) => (norm > 0 && Number.isFinite(r) ? r / norm : 0));
  const x = project(u, k, weights, n);
  const { intercept, slope } = ols1d(x, stats.yMeans);
  const replicateIntercepts: number[] = [];
  const replicateSlopes: number[] = [];
  const yb = new Float64Array(n);
  if (stats.replicates > 1)
    for (let b = 0; b < stats.replicates; b++) {
      for (let i = 0; i < n; i++) yb[i] = stats.yBoot[i * stats.replicates + b] as number;
      const fit = ols1d(x, yb);
      replicateIntercepts.push(fit.intercept);
      replicateSlopes.push(fit.slope);
    }
  return { weights, intercept, slope, yMin: stats.yMin, yMax: stats.yMax, yMean: stats.yMean, replicateIntercepts, replicateSlopes };
}

export function project(u: Float64Array, k: number, w: ArrayLike<number>, n: number): Float64Array {
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < k; c++) s += (u[i * k + c] as number) * (w[c] as number);
    x[i] = s;
  }
  return x;
}

export function ols1d(x: ArrayLike<number>, y: ArrayLike<number>): { intercept: number; slope: number } {
  const n = x.length;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i] as number;
    my += y[i] as number;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    const dx = (x[i] as number) - mx;
    sxy += dx * ((y[i] as number) - my);
    sxx += dx * dx;
  }
  const slope = sxx > 1e-300 ? sxy / sxx : 0;
  return { intercept: my - slope * mx, slope };
}

/** Prediction at embedding `u`, with PACE's guard: non-finite or beyond 2 ranges of y → pool mean. */
export function predictGoalA(fit: GoalAFit, u: ArrayLike<number>): { value: number; guarded: boolean; replicates: number[] } {
  let x = 0;
  for (let c = 0; c < fit.weights.length; c++) x += (u[c] as number) * (fit.weights[c] as number);
  const range = fit.yMax - fit.yMin;
  const guard = (v: number) => Number.isFinite(v) && v >= fit.yMin - 2 * range && v <= fit.yMax + 2 * range;
  const raw = fit.intercept + fit.slope * x;
  const replicates = fit.replicateSlopes.map((s, b) => {
    const v = (fit.replicateIntercepts[b] as number) + s * x;
    return guard(v) ? v : fit.yMean;
  });
  return guard(raw) ? { value: raw, guarded: false, replicates } : { value: fit.yMean, guarded: true, replicates };
}
