/**
 * Leave-one-model-out cross-validation per target. In every fold the held-out model's target
 * score is unseen by selection, embeddings, regressions, baselines and — for the nested
 * search — by hyper-parameter choice, which runs its own leave-one-out over the training
 * models only. Frozen settings are reported beside it.
 */
import type { ProgressCallback } from '../../kernel/progress.js';
import { Rng } from '../../kernel/rng.js';
import { absoluteMetrics, addPair, pairAccuracy, type AbsoluteMetrics, type PairTally } from './metrics.js';
import { computeGlobalBasis, fitTarget, gridPredictions, gridSize, predictPoolRow, prepareFold, type GlobalBasis, type Grid } from '../pipeline.js';
import { baselines, baselineOrder, type BaselineName } from '../predictors/baselines.js';
import { spearman } from '../numerics/rank.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from '../types.js';
import { fallbackConfig } from '../types.js';
import { addCoverage, crossValidatedPredictions, newCoverage, type CoverageTally } from './coverage.js';
import { shippedForms, shippedKinds, shippedPoolPredictions, shippedPredictors, type ShippedKind } from '../predictors/shipped-family.js';
import { foldView } from './fold-view.js';
import { bootstrapIndices, looMeanPredictions, maeVerdict, pairedComparison, type PairedComparison } from './uncertainty.js';
import { holmAdjust } from './holm.js';

/** Bootstrap-over-models replicates behind every PACE-vs-mean interval. */
export const modelBootstrap = 2000;
import { loadDense } from '../numerics/dense.js';

export interface LoocvOptions extends PaceOptions {
  /** Frozen configuration per target name; targets without one use `fallbackConfig`. */
  frozen: Record<string, PaceConfig>;
  /** Nested search grid; null skips the nested search. */
  nested: Grid | null;
  baselines: BaselineName[];
  /** Budgets for the frozen-settings budget curve (empty = none). */
  budgetCurve: number[];
  /** Evaluate only the first N held-out models (benchmarks); all by default. */
  maxFolds?: number;
  /** Measure the empirical coverage of the frozen-settings prediction intervals (inner leave-one-out per fold). */
  coverage?: boolean;
  progress?: (message: string) => void;
  /** Folds done over every target (done, total). */
  onProgress?: ProgressCallback;
}

export interface MethodResult {
  method: string;
  title: string;
  /** Prediction per model (internal fraction scale), in TargetReport.models order; null when not evaluated. */
  predictions: Array<number | null>;
  metrics: AbsoluteMetrics;
  /** Pairwise accuracy of the point predictions against the training models' true scores. */
  pairAccuracy: number;
  pairs: number;
  /** For PACE rows: Goal B (Bradley–Terry) pairwise accuracy. */
  goalBPairAccuracy?: number;
}

export interface TargetReport {
  target: string;
  scale: PreparedTarget['scale'];
  displayFactor: number;
  models: string[];
  truth: number[];
  bootstrap: number;
  frozenConfig: PaceConfig;
  methods: MethodResult[];
  /** Configuration the nested search chose in each outer fold. */
  nestedChoices: Array<{ heldOut: string; config: PaceConfig }>;
  /** Shippable form the training models' own cross-validation chose in each outer fold (with coverage only). */
  shippedChoices: Array<{ heldOut: string; kind: ShippedKind }>;
  budgetCurve: Array<{ budget: number; metrics: AbsoluteMetrics; pairAccuracy: number; goalBPairAccuracy: number }>;
  guardedPredictions: number;
  /** Per method (not the mean itself): paired difference to the mean predictor, bootstrap over models. */
  comparisons: Array<{ method: string; vsMean: PairedComparison }>;
  /** Empirical coverage of the shipped row's intervals at 80% and 95% (empty when not measured). */
  coverage: CoverageTally[];
  /** The same for the pace-nested row (empty without the nested search or coverage). */
  nestedCoverage: CoverageTally[];
}

export interface LoocvReport {
  options: Omit<LoocvOptions, 'progress'>;
  pool: { models: number; instances: number; tasks: Record<string, number> };
  targets: TargetReport[];
}

interface Accumulator {
  predictions: Array<number | null>;
  pairs: PairTally;
  goalB?: PairTally;
}

function newAcc(n: number, goalB = false): Accumulator {
  return { predictions: new Array(n).fill(null), pairs: { correct: 0, pairs: 0 }, ...(goalB ? { goalB: { correct: 0, pairs: 0 } } : {}) };
}

function scorePairs(acc: Accumulator, k: number, prediction: number, target: PreparedTarget, trainIdx: Int32Array, margins?: number[]): void {
  acc.predictions[k] = prediction;
  const yk = target.y[k] as number;
  trainIdx.forEach((j, t) => {
    const diff = yk - (target.y[j] as number);
    addPair(acc.pairs, diff, prediction - (target.y[j] as number));
    if (acc.goalB && margins && margins.length) addPair(acc.goalB, diff, margins[t] as number);
  });
}

function finishMethod(method: string, title: string, acc: Accumulator, target: PreparedTarget): MethodResult {
  const truth: number[] = [];
  const pred: number[] = [];
  acc.predictions.forEach((p, k) => {
    if (p === null) return;
    truth.push(target.y[k] as number);
    pred.push(p);
  });
  return {
    method,
    title,
    predictions: acc.predictions,
    metrics: absoluteMetrics(truth, pred),
    pairAccuracy: pairAccuracy(acc.pairs),
    pairs: acc.pairs.pairs,
    ...(acc.goalB ? { goalBPairAccuracy: pairAccuracy(acc.goalB) } : {}),
  };
}

/** PACE's tuning criterion (cli._abs_score): 100·MAE − Spearman, lower is better. */
export function tuningScore(truth: ArrayLike<number>, predicted: ArrayLike<number>): number {
  let mae = 0;
  for (let i = 0; i < truth.length; i++) mae += Math.abs((truth[i] as number) - (predicted[i] as number));
  mae /= truth.length;
  const rho = spearman(truth, predicted);
  return 100 * mae - (Number.isFinite(rho) ? rho : 0);
}

/** One inner fold's predictions of every grid configuration for one model. */
interface InnerColumn {
  configs: PaceConfig[];
  values: Float64Array;
}

/**
 * Inner folds shared between outer folds. Outer fold k's inner fold that leaves out j trains on
 * every model but k and j — the same models as outer fold j's inner fold that leaves out k. The
 * first of the two predicts both held-out models from that one fit (gridPredictions predicts
 * each row on its own, so the values are the ones a separate fit gives) and keeps the other's
 * column until outer fold j takes it. Enabled when every kept column fits in `maxBytes`.
 */
export class InnerFoldShare {
  private readonly held = new Map<string, Float64Array>();
  private configs: PaceConfig[] | null = null;
  outer = -1;
  constructor(private readonly folds: number) {}

  static enabled(folds: number, configs: number, maxBytes = 512 * 2 ** 20): boolean {
    return ((folds * (folds - 1)) / 2) * configs * 8 <= maxBytes;
  }

  /** Whether outer fold `other` is still to run (and will want the column for this outer model). */
  wants(other: number): boolean {
    return other > this.outer && other < this.folds;
  }

  give(other: number, column: InnerColumn): void {
    // The grid's configurations come in the same order from every fit: keep one list of them.
    this.configs ??= column.configs;
    this.held.set(`${this.outer}/${other}`, column.values);
  }

  take(other: number): InnerColumn | undefined {
    const key = `${other}/${this.outer}`;
    const values = this.held.get(key);
    if (!values) return undefined;
    this.held.delete(key);
    return { configs: this.configs!, values };
  }
}

export function nestedChoice(data: PaceData, target: PreparedTarget, trainIdx: Int32Array, options: LoocvOptions, grid: Grid, shared: GlobalBasis | null): PaceConfig {
  return nestedSearch(data, target, trainIdx, options, grid, shared).config;
}

/**
 * The nested search on the training models: the configuration with the best inner leave-one-out
 * score, and that configuration's inner residuals (y − ŷ per training model). The residuals size
 * the nested row's conformal interval; they come from the same inner folds that chose the
 * configuration, so they are slightly optimistic (a third level of cross-validation would fix
 * that at 480× the cost).
 */
export function nestedSearch(data: PaceData, target: PreparedTarget, trainIdx: Int32Array, options: LoocvOptions, grid: Grid, shared: GlobalBasis | null, pairs?: InnerFoldShare): { config: PaceConfig; residuals: Float64Array } {
  let sums: Float64Array[] | null = null;
  let configs: PaceConfig[] = [];
  const truth = Float64Array.from(trainIdx, (i) => target.y[i] as number);
  trainIdx.forEach((inner, t) => {
    let column = pairs?.take(inner);
    if (!column) {
      const innerTrain = Int32Array.from(trainIdx.filter((_, s) => s !== t));
      const basis = prepareFold(data, target, innerTrain, options, shared);
      // The outer fold of `inner` fits on these same models in its own inner fold of this outer
      // model: predict it now as well, once, and hand the column over.
      const later = pairs?.wants(inner) ?? false;
      const both = gridPredictions(basis, later ? Int32Array.of(target.rows[inner] as number, target.rows[pairs!.outer] as number) : Int32Array.of(target.rows[inner] as number), grid);
      column = { configs: both.map((p) => p.config), values: Float64Array.from(both, (p) => p.predictions[0] as number) };
      if (later) pairs!.give(inner, { configs: column.configs, values: Float64Array.from(both, (p) => p.predictions[1] as number) });
    }
    if (!sums) {
      sums = column.configs.map(() => new Float64Array(trainIdx.length));
      configs = column.configs;
    }
    column.values.forEach((v, c) => ((sums as Float64Array[])[c]![t] = v));
  });
  let best = 0;
  let bestScore = Infinity;
  (sums as unknown as Float64Array[]).forEach((pred, c) => {
    const s = tuningScore(truth, pred);
    if (s < bestScore - 1e-12) {
      bestScore = s;
      best = c;
    }
  });
  const chosen = (sums as unknown as Float64Array[])[best] as Float64Array;
  return { config: configs[best] as PaceConfig, residuals: Float64Array.from(chosen, (p, t) => (truth[t] as number) - p) };
}

export async function runLoocv(data: PaceData, options: LoocvOptions): Promise<LoocvReport> {
  await loadDense();
  const reports: TargetReport[] = [];
  const rng = new Rng(options.seed);
  const foldsTotal = data.targets.reduce((n, t) => n + Math.min(t.rows.length, options.maxFolds ?? t.rows.length), 0);
  let foldsDone = 0;
  for (const target of data.targets) {
    const n = target.rows.length;
    const folds = Math.min(n, options.maxFolds ?? n);
    const frozen = options.frozen[target.name] ?? fallbackConfig;
    const shared = options.svdScope === 'all' ? computeGlobalBasis(data, Int32Array.from(data.models.keys()), `${options.seed}/svd/all`) : null;
    const paceFrozen = newAcc(n, true);
    const shipped = newAcc(n);
    const shippedByKind = new Map(shippedKinds.map((kind) => [kind, newAcc(n)]));
    const paceNested = newAcc(n, true);
    const base = new Map(options.baselines.map((b) => [b, newAcc(n)]));
    const curve = new Map(options.budgetCurve.map((c) => [c, newAcc(n, true)]));
    const nestedChoices: TargetReport['nestedChoices'] = [];
    const shippedChoices: TargetReport['shippedChoices'] = [];
    const cache = new Map<string, unknown>();
    let guarded = 0;
    const coverage = options.coverage === false ? [] : newCoverage();
    const nestedCoverage = options.coverage === false || !options.nested ? [] : newCoverage();
    const innerShare = options.nested && InnerFoldShare.enabled(folds, gridSize(options.nested)) ? new InnerFoldShare(folds) : undefined;
    for (let k = 0; k < folds; k++) {
      const modelName = data.models[target.rows[k] as number] as string;
      options.progress?.(`loocv ${target.name}: fold ${k + 1}/${folds} (${modelName})`);
      options.onProgress?.(foldsDone++, foldsTotal, `LOOCV folds (${target.name})`);
      const trainIdx = Int32Array.from({ length: n - 1 }, (_, i) => (i < k ? i : i + 1));
      const basis = prepareFold(data, target, trainIdx, options, shared, true);
      const testRow = target.rows[k] as number;
      const fit = fitTarget(basis, frozen, options.alpha);
      const pred = predictPoolRow(basis, fit, testRow);
      if (pred.guarded) guarded++;
      scorePairs(paceFrozen, k, pred.value, target, trainIdx, pred.margins);
      // The shipped row faces what a checkpoint faces: its fold's universe comes from the training models only.
      const fold = foldView(data, [testRow]);
      const shippedBasis = fold === data ? basis : prepareFold(fold, target, trainIdx, options, null);
      const points = shippedPoolPredictions(shippedBasis, shippedForms(shippedBasis, fold === data ? fit : fitTarget(shippedBasis, frozen, null)), testRow);
      for (const kind of shippedKinds) scorePairs(shippedByKind.get(kind)!, k, points[kind], target, trainIdx);
      if (coverage.length) {
        // The whole of what fit does, on this fold's training models: their own cross-validation
        // picks the form, and its residuals make the interval `check` would issue around it.
        const inner = await crossValidatedPredictions(data, target, trainIdx, frozen, options, shared);
        const point = points[inner.kind];
        shippedChoices.push({ heldOut: modelName, kind: inner.kind });
        scorePairs(shipped, k, point, target, trainIdx);
        addCoverage(coverage, target.y[k] as number, point, inner.residuals, pred.replicates.map((r) => r - pred.value + point), target.scale);
      }
      if (options.nested) {
        if (innerShare) innerShare.outer = k;
        const search = nestedSearch(data, target, trainIdx, options, options.nested, shared, innerShare);
        nestedChoices.push({ heldOut: modelName, config: search.config });
        const nestedFit = fitTarget(basis, search.config, options.alpha);
        const np = predictPoolRow(basis, nestedFit, testRow);
        scorePairs(paceNested, k, np.value, target, trainIdx, np.margins);
        if (nestedCoverage.length) addCoverage(nestedCoverage, target.y[k] as number, np.value, search.residuals, np.replicates, target.scale);
      }
      for (const name of options.baselines) {
        const value = await baselines[name].predict({ basis, testRow, budget: frozen.budget, ncH: frozen.ncH, rng: rng.fork(`${target.name}/${name}/${k}`), cache });
        scorePairs(base.get(name)!, k, value, target, trainIdx);
      }
      for (const budget of options.budgetCurve) {
        const cf = fitTarget(basis, { ...frozen, budget }, options.alpha);
        const cp = predictPoolRow(basis, cf, testRow);
        scorePairs(curve.get(budget)!, k, cp.value, target, trainIdx, cp.margins);
      }
    }
    const methods: MethodResult[] = [
      // Only with coverage: the form choice needs each fold's inner cross-validation.
      ...(coverage.length ? [finishMethod('shipped', 'shipped: in each fold, the form the training models’ own cross-validation picks (the simplest one not significantly worse; what fit writes and check uses)', shipped, target)] : []),
      ...shippedKinds.map((kind) => finishMethod(`shipped-${kind}`, `shippable form "${kind}": ${shippedPredictors[kind].title}, clipped to the target range`, shippedByKind.get(kind)!, target)),
      finishMethod('pace-frozen', `PACE, frozen settings (C=${frozen.budget}, q=${frozen.q}, m=${frozen.m}, nc_h=${frozen.ncH}, nc_d=${frozen.ncD})`, paceFrozen, target),
    ];
    if (options.nested) methods.push(finishMethod('pace-nested', 'PACE, settings tuned by nested leave-one-out inside each fold', paceNested, target));
    for (const name of options.baselines) methods.push(finishMethod(name, baselines[name].title, base.get(name)!, target));
    const comparisons = compareWithMean(methods, target, rng.fork(`${target.name}/models-bootstrap`));
    reports.push({
      target: target.name,
      scale: target.scale,
      displayFactor: target.displayFactor,
      models: Array.from(target.rows, (r) => data.models[r] as string),
      truth: Array.from(target.y),
      bootstrap: target.bootstrap,
      frozenConfig: frozen,
      methods,
      nestedChoices,
      shippedChoices,
      budgetCurve: options.budgetCurve.map((budget) => {
        const r = finishMethod(`C=${budget}`, '', curve.get(budget)!, target);
        return { budget, metrics: r.metrics, pairAccuracy: r.pairAccuracy, goalBPairAccuracy: r.goalBPairAccuracy ?? NaN };
      }),
      guardedPredictions: guarded,
      comparisons,
      coverage,
      nestedCoverage,
    });
  }
  const tasks: Record<string, number> = {};
  for (const i of data.instances) tasks[i.task] = (tasks[i.task] ?? 0) + 1;
  options.onProgress?.(foldsDone, foldsTotal, 'LOOCV folds');
  const { progress: _progress, onProgress: _onProgress, ...rest } = options;
  return { options: rest, pool: { models: data.models.length, instances: data.instances.length, tasks }, targets: reports };
}

/** Paired differences to the leave-one-out mean, on the folds every compared method has. */
function compareWithMean(methods: MethodResult[], target: PreparedTarget, rng: Rng): TargetReport['comparisons'] {
  const mean = looMeanPredictions(target.y);
  const out: TargetReport['comparisons'] = [];
  for (const m of methods) {
    if (m.method === 'mean') continue;
    const keep = m.predictions.flatMap((p, k) => (p === null ? [] : [k]));
    if (keep.length < 3) continue;
    const resamples = bootstrapIndices(keep.length, modelBootstrap, rng.fork(m.method));
    const truth = keep.map((k) => target.y[k] as number);
    out.push({ method: m.method, vsMean: pairedComparison(truth, keep.map((k) => m.predictions[k] as number), keep.map((k) => mean[k] as number), resamples) });
  }
  // Every method is tested against the same mean predictor: the verdicts are corrected for the family.
  const adjusted = holmAdjust(out.map((c) => c.vsMean.test.pTwoSided));
  out.forEach((c, i) => {
    const p = adjusted[i] as number;
    c.vsMean.adjusted = { method: 'holm', family: out.length, p, verdict: maeVerdict({ ...c.vsMean.test, pTwoSided: p }) };
  });
  return out;
}

export { baselineOrder };
