/**
 * What `fit` records so that `predict` and `check` know when not to predict: the shipped
 * predictor's cross-validated skill (MAE against the mean predictor, judged by a seed-free
 * sign-flip test over models, and beside the simpler baselines on the same folds), the
 * cross-validated residuals behind the conformal intervals, and the range the training models
 * span in each embedding.
 */
import { Rng } from '../../kernel/rng.js';
import type { GlobalBasis, TargetFit } from '../pipeline.js';
import { crossValidatedPredictions } from './coverage.js';
import { absoluteErrorDifferences, bootstrapIndices, looMeanPredictions, maeVerdict, pairedComparison, type Verdict } from './uncertainty.js';
import { signFlipTest } from './sign-flip.js';
import { baselines, type BaselineName } from '../predictors/baselines.js';
import type { ShippedKind } from '../predictors/shipped-family.js';
import type { ShippedChoice } from './shipped-selection.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from '../types.js';
import { leverageDistance, leverageModel, leverageTolerance, type LeverageModel } from './leverage.js';
import { rangeNoiseZ } from './range-noise.js';

export const skillBootstrap = 2000;

/**
 * Simpler predictors every fit cross-validates beside the shipped one, on the same folds. They
 * reuse one pool Gram matrix (or one mean per model) across folds, so they add little to a fit; lasso on all instances
 * (a models × instances copy per fold) is left to `evaluate`.
 */
export const skillBaselines = ['overall-mean-ols', 'benchmark-means', 'ridge-all', 'knn-models'] as const satisfies readonly BaselineName[];

/**
 * Above this many models the pool Gram matrix behind both baselines (models² × instances) costs
 * more than the fit itself (500 × 100,000: about a minute); `evaluate` still compares them there.
 */
export const fitBaselinesUpTo = 200;

export interface BaselineSkill {
  name: BaselineName;
  title: string;
  /** Cross-validated MAE (internal scale). */
  mae: number;
  /** Two-sided sign-flip p of shipped − baseline absolute errors. */
  pValue: number;
  /** From the shipped predictor's side: `worse` = the baseline errs significantly less. */
  verdict: Verdict;
}

export interface CrossValidatedSkill {
  /** Models cross-validated, and the folds they were split into (folds = models: leave-one-out). */
  models: number;
  folds: number;
  /** Cross-validated MAE of the shipped predictor and of the mean predictor (internal scale). */
  mae: number;
  meanMae: number;
  /** mae − meanMae with its 95% bootstrap-over-models interval (description only). */
  maeDifference: number;
  interval: [number, number];
  /** Two-sided sign-flip p-value behind the verdict (seed-free; sign-flip.ts). */
  pValue: number;
  verdict: Verdict;
  /** The simpler predictors on the same folds, each compared with the shipped one. */
  baselines: BaselineSkill[];
  /** The shipped form (shipped-selection.ts: the simplest one not significantly worse than the lowest-MAE form), and each form's MAE. */
  shippedKind: ShippedKind;
  kindMae: Record<ShippedKind, number>;
  /** Each form's two-sided sign-flip p against the lowest-MAE form (the selection's evidence). */
  kindP: Record<ShippedKind, number>;
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
  /** Per side: the training models' Mahalanobis yardstick (leverage.ts); null when too few models. */
  leverage: { local: LeverageModel | null; global: LeverageModel | null };
}

export async function crossValidatedSkill(data: PaceData, target: PreparedTarget, config: PaceConfig, options: PaceOptions, shared: GlobalBasis | null): Promise<CrossValidatedSkill> {
  const idx = Int32Array.from(target.rows.keys());
  const cv = await crossValidatedPredictions(data, target, idx, config, options, shared, idx.length <= fitBaselinesUpTo ? [...skillBaselines] : []);
  const truth = Array.from(target.y);
  const mean = looMeanPredictions(truth);
  const rng = new Rng(`${options.seed}/skill/${target.name}`);
  const c = pairedComparison(truth, Array.from(cv.predictions), mean, bootstrapIndices(truth.length, skillBootstrap, rng));
  const mae = (pred: ArrayLike<number>) => truth.reduce((a, y, i) => a + Math.abs(y - (pred[i] as number)), 0) / truth.length;
  return {
    models: truth.length,
    folds: cv.folds,
    mae: mae(cv.predictions),
    meanMae: mae(mean),
    maeDifference: c.metrics.mae.difference,
    interval: c.metrics.mae.interval,
    pValue: c.test.pTwoSided,
    verdict: c.verdict,
    baselines: [...cv.baselines].map(([name, pred]) => {
      const test = signFlipTest(absoluteErrorDifferences(truth, cv.predictions, pred));
      return { name, title: baselines[name].title, mae: mae(pred), pValue: test.pTwoSided, verdict: maeVerdict(test) };
    }),
    shippedKind: cv.kind,
    kindMae: Object.fromEntries(Object.entries(cv.choice.forms).map(([k, f]) => [k, f.mae])) as Record<ShippedKind, number>,
    kindP: Object.fromEntries(Object.entries(cv.choice.forms).map(([k, f]) => [k, f.pVersusLowest])) as Record<ShippedKind, number>,
    absResiduals: Array.from(cv.residuals, Math.abs).sort((a, b) => a - b),
  };
}

/** The simpler predictor that errs significantly less than the shipped one on the same folds, if any (lowest MAE first). */
export function betterBaseline(cv: Pick<CrossValidatedSkill, 'baselines'>): BaselineSkill | null {
  const better = (cv.baselines ?? []).filter((b) => b.verdict === 'worse').sort((a, b) => a.mae - b.mae);
  return better[0] ?? null;
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
    leverage: {
      local: fit.local ? leverageModel(fit.local.trainU, fit.local.embedding.k) : null,
      global: fit.global ? leverageModel(fit.global.trainU, fit.global.embedding.k) : null,
    },
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

/** Per side: the checkpoint's coordinates (or, as `noise`, their standard errors); null = no such side. */
export interface RangeInput {
  local: ArrayLike<number> | null;
  global: ArrayLike<number> | null;
  proxyMean: ArrayLike<number> | null;
}

export interface RangeExcursion {
  /**
   * `box`: one embedding coordinate outside the training models' range; `leverage`: the
   * coordinates jointly farther from the training models than any of them is from the others;
   * `below`: proxy accuracy below every training model's (or no proxy item right at all).
   */
  kind: 'box' | 'leverage' | 'below';
  side: 'local' | 'global' | 'proxyMean';
  coordinate: number;
  value: number;
  min: number;
  max: number;
  /** Distance outside the range in units of the range's width (box), of the threshold (leverage), or the shortfall (below). */
  excess: number;
  /** Box: the coordinate's sampling standard error from the checkpoint's item draws (range-noise.ts). */
  standardError?: number;
}

/**
 * Share of a coordinate's training range a checkpoint may lie beyond it before it counts as
 * outside: a new model exchangeable with n training models falls just outside their box on a
 * coordinate with probability 2/(n+1), which alone is not extrapolation worth a flag.
 */
export const rangeTolerance = 0.1;

/**
 * Where a checkpoint lies outside what the training models span, so that a prediction for it
 * would be an extrapolation: coordinates outside the box (widened by `rangeTolerance`, and by
 * `rangeNoiseZ` of the coordinate's own sampling standard error from `noise`: range-noise.ts), a
 * Mahalanobis distance beyond the pool's leave-one-out yardstick, or a proxy accuracy below the
 * weakest training model's. The last is what a pretraining checkpoint far below a pool of
 * post-trained models shows, and it is never tolerated, whatever the noise: the regression has
 * no model there.
 */
export function rangeExcursions(range: EmbeddingRange, u: RangeInput, noise: RangeInput = { local: null, global: null, proxyMean: null }): RangeExcursion[] {
  const out: RangeExcursion[] = [];
  for (const side of ['local', 'global', 'proxyMean'] as const) {
    const r = range[side];
    const x = u[side];
    if (!r || !x) continue;
    r.min.forEach((lo, j) => {
      const hi = r.max[j] as number;
      const v = x[j] as number;
      if (side === 'proxyMean' && (v < lo || v === 0)) {
        out.push({ kind: 'below', side, coordinate: j, value: v, min: lo, max: hi, excess: lo - v });
        return;
      }
      const width = hi - lo || 1;
      const beyond = v < lo ? lo - v : v > hi ? v - hi : 0;
      const standardError = (noise[side]?.[j] as number | undefined) ?? 0;
      if (beyond / width > rangeTolerance && beyond > rangeNoiseZ * standardError) out.push({ kind: 'box', side, coordinate: j, value: v, min: lo, max: hi, excess: beyond / width, standardError });
    });
  }
  for (const side of ['local', 'global'] as const) {
    const model = range.leverage?.[side];
    const x = u[side];
    if (!model || !x) continue;
    const d = leverageDistance(model, x);
    if (d > leverageTolerance * model.threshold) out.push({ kind: 'leverage', side, coordinate: -1, value: d, min: 0, max: model.threshold, excess: d / model.threshold });
  }
  return out;
}
