/**
 * Leave-one-out residuals of one frozen configuration over a set of models, used twice: `fit`
 * turns them into the cross-validated skill and the conformal interval stored in the model file;
 * `evaluate` recomputes them inside every outer fold (training models only) to measure how often
 * the interval it would have issued covers the held-out model.
 */
import { fitTarget, predictPoolRow, subView, type GlobalBasis } from '../pipeline.js';
import { columnSpearmanFolds } from '../numerics/column-spearman-folds.js';
import { shippedForms, shippedKinds, shippedPoolPredictions, type ShippedKind } from '../predictors/shipped-family.js';
import { chooseShippedKind, type ShippedChoice } from './shipped-selection.js';
import { foldView } from './fold-view.js';
import { baselines, type BaselineName } from '../predictors/baselines.js';
import { startLassoAll, type LassoFit } from '../predictors/lasso.js';
import { startRidgeAll } from '../predictors/ridge.js';
import { startBenchmarkMeans } from '../predictors/benchmark-means.js';
import { conformalInterval, intervalLevels, targetBounds, type PredictionInterval } from './conformal.js';
import { percentileSorted } from './uncertainty.js';
import { Rng } from '../../kernel/rng.js';
import { innerBasis, type BasisCache } from './basis-cache.js';
import { defaultFoldProtocol, foldMembers, planFolds, type FoldProtocol } from './folds.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from '../types.js';

/**
 * Cross-validated predictions of every shippable form (predictors/shipped-family.ts: monotone
 * and clipped to the target's range) over `idx` (indices into target.rows): each model is
 * predicted by a fit on the models outside its fold (folds.ts: leave-one-out up to 50 models,
 * 10 folds dealt by model-name hash above), exactly as
 * `check` would predict it from that fit's model file. `kind` is the form the selection rule
 * picks (shipped-selection.ts); `predictions` and `residuals` (y − ŷ) are that form's.
 */
export async function crossValidatedPredictions(
  data: PaceData,
  target: PreparedTarget,
  idx: Int32Array,
  config: PaceConfig,
  options: PaceOptions,
  shared: GlobalBasis | null,
  compareWith: BaselineName[] = [],
  protocol: FoldProtocol = defaultFoldProtocol,
  /** Inner-fold bases shared with the nested search of the same outer fold (evaluate). */
  bases?: BasisCache,
  /** Also predict with PACE's own frozen-settings fit (evaluate's `pace-frozen` row), on the same universe as the baselines. */
  withFrozen = false,
  /** The outer fold's `lasso-all` fit on the same columns: each inner fold's lasso starts from it. */
  lassoStart: Promise<LassoFit> | null = null,
): Promise<{ predictions: Float64Array; residuals: Float64Array; folds: number; baselines: Map<BaselineName, Float64Array>; kind: ShippedKind; choice: ShippedChoice; byKind: Record<ShippedKind, Float64Array>; frozen: Float64Array | null }> {
  const byKind = Object.fromEntries(shippedKinds.map((k) => [k, new Float64Array(idx.length)])) as Record<ShippedKind, Float64Array>;
  const frozen = withFrozen ? new Float64Array(idx.length) : null;
  const others = new Map(compareWith.map((name) => [name, new Float64Array(idx.length)]));
  const cache = new Map<string, unknown>();
  const rng = new Rng(`${options.seed}/cv-baselines/${target.name}`);
  // Target models outside `idx` (evaluate's outer held-out model) are never training models here.
  const inIdx = new Set(Array.from(idx, (i) => target.rows[i] as number));
  const outside = Array.from(target.rows).filter((r) => !inIdx.has(r));
  const plan = planFolds(Array.from(idx, (i) => data.models[target.rows[i] as number] as string), 'inner', protocol);
  const folds = plan.folds;
  const inFold = new Uint8Array(idx.length);
  const members = foldMembers(plan);
  const trainSets = members.map((held) => {
    inFold.fill(0);
    for (const t of held) inFold[t] = 1;
    return Int32Array.from(
      Array.from({ length: idx.length }, (_, t) => t).filter((t) => !inFold[t]),
      (t) => idx[t] as number,
    );
  });
  // The fold's universe is fixed by its training models; the held-out rows' gaps are their own.
  const views = members.map((held) => foldView(data, [...held.map((t) => target.rows[idx[t] as number] as number), ...outside]));
  const relevance = bases ? null : sharedRelevance(data, target, trainSets, views);
  for (const [f, held] of members.entries()) {
    const trainIdx = trainSets[f]!;
    const fold = views[f]!;
    const basis = innerBasis(bases, fold, target, trainIdx, options, fold === data ? shared : null, relevance?.get(f));
    // Baselines (and PACE's own frozen fit) read the held-out row whole: they stay on the
    // universe every pool model has, as in evaluate's outer folds. Under K-fold that basis is the
    // nested search's for the same inner fold (shared through `bases`).
    const baselineBasis = (others.size || frozen) && fold !== data ? innerBasis(bases, data, target, trainIdx, options, shared) : basis;
    // Lasso and the two ridge fits run on worker threads (where there are) while the fold's PACE fits run here.
    if (others.has('lasso-all')) startLassoAll(baselineBasis, lassoStart).catch(() => undefined);
    if (others.has('ridge-all')) startRidgeAll(baselineBasis, cache).catch(() => undefined);
    if (others.has('benchmark-means')) startBenchmarkMeans(baselineBasis, cache).catch(() => undefined);
    const fit = fitTarget(basis, config, null);
    const forms = shippedForms(basis, fit);
    const frozenFit = frozen ? (baselineBasis === basis ? fit : fitTarget(baselineBasis, config, null)) : null;
    for (const t of held) {
      const row = idx[t] as number;
      const p = shippedPoolPredictions(basis, forms, target.rows[row] as number);
      for (const k of shippedKinds) byKind[k][t] = p[k];
      if (frozen && frozenFit) frozen[t] = predictPoolRow(baselineBasis, frozenFit, target.rows[row] as number).value;
      for (const [name, out] of others)
        out[t] = await baselines[name].predict({ basis: baselineBasis, testRow: target.rows[row] as number, budget: config.budget, ncH: config.ncH, rng: rng.fork(`${name}/${t}`), cache });
    }
  }
  const choice = chooseShippedKind(Float64Array.from(idx, (i) => target.y[i] as number), byKind);
  const predictions = byKind[choice.kind];
  const residuals = Float64Array.from(predictions, (p, t) => (target.y[idx[t] as number] as number) - p);
  return { predictions, residuals, folds, baselines: others, kind: choice.kind, choice, byKind, frozen };
}

/**
 * Column Spearman of every fold on the pool's own columns, from one pass over the matrix
 * (column-spearman-folds.ts; bit for bit each fold's own), by fold. Folds whose view adds
 * columns (gaps of held-out models) compute theirs in `prepareFold`. `evaluate`'s inner folds,
 * which share bases with its nested search (`bases`), keep theirs there.
 */
function sharedRelevance(data: PaceData, target: PreparedTarget, trainSets: Int32Array[], views: PaceData[]): Map<number, Float64Array> | null {
  const own = trainSets.map((_, f) => f).filter((f) => views[f] === data);
  if (own.length < 2) return null;
  const rho = columnSpearmanFolds(
    subView(data.view, target.rows),
    own.map((f) => ({ rows: trainSets[f]!, y: Float64Array.from(trainSets[f]!, (i) => target.y[i] as number) })),
  );
  return new Map(own.map((f, i) => [f, rho[i]!]));
}

/** The label-noise interval of a prediction at `level`, from its bootstrap replicates. */
export function labelNoiseInterval(replicates: number[], level: number): [number, number] | null {
  if (replicates.length < 2) return null;
  const sorted = [...replicates].sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return [percentileSorted(sorted, tail), percentileSorted(sorted, 1 - tail)];
}

export interface CoverageTally {
  level: number;
  folds: number;
  covered: number;
  /** Folds where the inner residuals were too few to bound the interval (whole valid range). */
  unbounded: number;
  /** Mean interval width on the internal scale. */
  meanWidth: number;
}

export function newCoverage(): CoverageTally[] {
  return intervalLevels.map((level) => ({ level, folds: 0, covered: 0, unbounded: 0, meanWidth: 0 }));
}

/** Scores one outer fold: the interval built from the training models' own residuals, against the held-out truth. */
export function addCoverage(tallies: CoverageTally[], truth: number, point: number, innerResiduals: Float64Array, replicates: number[], scale: PreparedTarget['scale']): PredictionInterval[] {
  const abs = innerResiduals.map(Math.abs);
  const out: PredictionInterval[] = [];
  for (const t of tallies) {
    const iv = conformalInterval(point, abs, t.level, targetBounds(scale), labelNoiseInterval(replicates, t.level));
    t.meanWidth = (t.meanWidth * t.folds + (iv.upper - iv.lower)) / (t.folds + 1);
    t.folds++;
    if (truth >= iv.lower && truth <= iv.upper) t.covered++;
    if (iv.unbounded) t.unbounded++;
    out.push(iv);
  }
  return out;
}
