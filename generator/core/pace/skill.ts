/**
 * What `fit` records so that `predict` and `check` know when not to predict: the target's
 * cross-validated skill (leave-one-out MAE against the mean predictor, with a bootstrap-over-models
 * interval), the leave-one-out residuals behind the conformal intervals, and the range the
 * training models span in each embedding.
 */
import { Rng } from '../kernel/rng.js';
import type { GlobalBasis, TargetFit } from './pipeline.js';
import { crossValidatedPredictions } from './coverage.js';
import { bootstrapIndices, looMeanPredictions, pairedComparison, type Verdict } from './uncertainty.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from './types.js';

export const skillBootstrap = 2000;

export interface CrossValidatedSkill {
  /** Models cross-validated, and the folds they were split into (folds = models: leave-one-out). */
  models: number;
  folds: number;
  /** Cross-validated MAE of this configuration and of the mean predictor (internal scale). */
  mae: number;
  meanMae: number;
  /** mae − meanMae with its 95% bootstrap-over-models interval. */
  maeDifference: number;
  interval: [number, number];
  verdict: Verdict;
  /** |y − ŷ| of every model's cross-validated prediction, ascending (internal scale). */
  absResiduals: number[];
}

/** Per embedding side: each coordinate's min and max over the training models. */
export interface EmbeddingRange {
  local: { min: number[]; max: number[] } | null;
  global: { min: number[]; max: number[] } | null;
  /**
   * Range of the training models' mean score over this target's proxy instances. The embeddings
   * are uncentred, so a checkpoint far outside the pool (all items wrong) can land at coordinates
   * that look ordinary; its raw mean cannot.
   */
  proxyMean: { min: number[]; max: number[] } | null;
}

export function crossValidatedSkill(data: PaceData, target: PreparedTarget, config: PaceConfig, options: PaceOptions, shared: GlobalBasis | null): CrossValidatedSkill {
  const idx = Int32Array.from(target.rows.keys());
  const { predictions, residuals, folds } = crossValidatedPredictions(data, target, idx, config, options, shared);
  const truth = Array.from(target.y);
  const mean = looMeanPredictions(truth);
  const rng = new Rng(`${options.seed}/skill/${target.name}`);
  const c = pairedComparison(truth, Array.from(predictions), mean, bootstrapIndices(truth.length, skillBootstrap, rng));
  let meanMae = 0;
  truth.forEach((y, i) => (meanMae += Math.abs(y - (mean[i] as number))));
  meanMae /= truth.length;
  return {
    models: truth.length,
    folds,
    mae: meanMae + c.metrics.mae.difference,
    meanMae,
    maeDifference: c.metrics.mae.difference,
    interval: c.metrics.mae.interval,
    verdict: c.verdict,
    absResiduals: Array.from(residuals, Math.abs).sort((a, b) => a - b),
  };
}

function sideRange(u: Float64Array | null, k: number): { min: number[]; max: number[] } | null {
  if (!u || k === 0) return null;
  const min = new Array<number>(k).fill(Infinity);
  const max = new Array<number>(k).fill(-Infinity);
  for (let i = 0; i < u.length; i++) {
    const j = i % k;
    min[j] = Math.min(min[j] as number, u[i] as number);
    max[j] = Math.max(max[j] as number, u[i] as number);
  }
  return { min, max };
}

export function embeddingRange(fit: TargetFit, proxyMeans: Float64Array | null): EmbeddingRange {
  return {
    local: fit.local ? sideRange(fit.local.trainU, fit.local.embedding.k) : null,
    global: fit.global ? sideRange(fit.global.trainU, fit.global.embedding.k) : null,
    proxyMean: proxyMeans && proxyMeans.length ? sideRange(proxyMeans, 1) : null,
  };
}

/** Mean of each training model's scores over the selected instances (view columns). */
export function proxyMeans(data: PaceData, poolRows: Int32Array, cols: Int32Array): Float64Array {
  const v = data.view;
  return Float64Array.from(poolRows, (r) => {
    const base = (v.rows[r] as number) * v.stride;
    let sum = 0;
    for (const c of cols) sum += v.data[base + (v.cols ? (v.cols[c] as number) : c)] as number;
    return cols.length ? sum / cols.length : NaN;
  });
}

export interface RangeExcursion {
  side: 'local' | 'global' | 'proxyMean';
  coordinate: number;
  value: number;
  min: number;
  max: number;
  /** Distance outside the range in units of the range's width. */
  excess: number;
}

/**
 * Share of a coordinate's training range a checkpoint may lie beyond it before it counts as
 * outside: a new model exchangeable with n training models falls just outside their box on a
 * coordinate with probability 2/(n+1), which alone is not extrapolation worth a flag.
 */
export const rangeTolerance = 0.1;

/**
 * Coordinates of a checkpoint outside the box the training models span (widened by
 * `rangeTolerance`). The regression was never fitted there, so its prediction is an extrapolation.
 */
export function rangeExcursions(range: EmbeddingRange, u: { local: ArrayLike<number> | null; global: ArrayLike<number> | null; proxyMean: ArrayLike<number> | null }): RangeExcursion[] {
  const out: RangeExcursion[] = [];
  for (const side of ['local', 'global', 'proxyMean'] as const) {
    const r = range[side];
    const x = u[side];
    if (!r || !x) continue;
    r.min.forEach((lo, j) => {
      const hi = r.max[j] as number;
      const v = x[j] as number;
      const width = hi - lo || 1;
      const excess = (v < lo ? lo - v : v > hi ? v - hi : 0) / width;
      if (excess > rangeTolerance) out.push({ side, coordinate: j, value: v, min: lo, max: hi, excess });
    });
  }
  return out;
}
