/**
 * Prediction intervals from leave-one-out residuals (the jackknife / split-conformal rule):
 * with n exchangeable absolute residuals, ŷ ± the ⌈(1−α)(n+1)⌉-th smallest covers a new model's
 * measured score with probability ≥ 1−α. The residuals are taken against measured target scores,
 * so they already carry the pool's target-label noise; the interval is widened further to the
 * checkpoint's own label-noise (bootstrap) interval when that is wider. With too few models the
 * rank exceeds n and the interval is the whole valid range — said, not hidden.
 */

/** Half-width at `level`; Infinity when n residuals cannot support that level. */
export function conformalHalfWidth(absResiduals: ArrayLike<number>, level: number): number {
  const sorted = Float64Array.from(absResiduals).sort();
  const n = sorted.length;
  const rank = Math.ceil(level * (n + 1) - 1e-12);
  if (n === 0 || rank > n) return Infinity;
  return sorted[Math.max(rank, 1) - 1] as number;
}

/** Smallest number of residuals for which `level` gives a finite interval. */
export function residualsNeeded(level: number): number {
  return Math.ceil(level / (1 - level) - 1e-12);
}

export interface PredictionInterval {
  level: number;
  lower: number;
  upper: number;
  /** The residuals could not bound the interval; it is the whole valid range. */
  unbounded: boolean;
}

export function conformalInterval(
  point: number,
  absResiduals: ArrayLike<number>,
  level: number,
  bounds: [number, number],
  labelNoise: [number, number] | null = null,
): PredictionInterval {
  const h = conformalHalfWidth(absResiduals, level);
  let lower = Math.max(bounds[0], point - h);
  let upper = Math.min(bounds[1], point + h);
  if (labelNoise) {
    lower = Math.max(bounds[0], Math.min(lower, labelNoise[0]));
    upper = Math.min(bounds[1], Math.max(upper, labelNoise[1]));
  }
  return { level, lower, upper, unbounded: !Number.isFinite(h) };
}

/** Valid range of a target on the internal scale (fractions for fraction/percent targets). */
export function targetBounds(scale: 'fraction' | 'percent' | 'raw'): [number, number] {
  return scale === 'raw' ? [-Infinity, Infinity] : [0, 1];
}

export const intervalLevels = [0.8, 0.95] as const;
