/**
 * Cross-validation over models per target: leave-one-model-out up to 50 models, K-fold by
 * model-name hash above (or as `outerFolds` says; folds.ts). In every fold the held-out models'
 * target scores are unseen by selection, embeddings, regressions, baselines and — for the nested
 * search and the `shipped` row's form choice — by the inner selection, which runs its own
 * cross-validation over the fold's training models only. Frozen settings are reported beside it.
 */
import type { ProgressCallback } from '../../kernel/progress.js';
import { Rng } from '../../kernel/rng.js';
import { absoluteMetrics, addPair, pairAccuracy, type AbsoluteMetrics, type PairTally } from './metrics.js';
import { computeGlobalBasis, fitTarget, gridSize, predictPoolRow, prepareFold, type Grid } from '../pipeline.js';
import { baselines, baselineOrder, type BaselineName } from '../predictors/baselines.js';
import { startLassoAll, type LassoFit } from '../predictors/lasso.js';
import { startRidgeAll } from '../predictors/ridge.js';
import { startBenchmarkMeans } from '../predictors/benchmark-means.js';
import type { PaceConfig, PaceData, PreparedTarget } from '../types.js';
import { fallbackConfig } from '../types.js';
import { addCoverage, crossValidatedPredictions, newCoverage, type CoverageTally } from './coverage.js';
import { shippedForms, shippedKinds, shippedPoolPredictions, shippedPredictors, type ShippedKind } from '../predictors/shipped-family.js';
import { foldView } from './fold-view.js';
import { absoluteErrorDifferences, bootstrapIndices, looMeanPredictions, maeVerdict, pairedComparison, type PairedComparison } from './uncertainty.js';
import { signFlipTests, type SignFlipResult } from './sign-flip.js';
import { holmAdjust } from './holm.js';
import { defaultFoldProtocol, foldMembers, planFolds, type FoldPlan } from './folds.js';
import { InnerFoldShare, nestedSearch, type NestedOptions } from './nested.js';
import { BasisCache } from './basis-cache.js';

export { InnerFoldShare, nestedChoice, nestedSearch, tuningScore } from './nested.js';

/** Bootstrap-over-models replicates behind every PACE-vs-mean interval. */
export const modelBootstrap = 2000;
import { loadDense } from '../numerics/dense.js';

export interface LoocvOptions extends NestedOptions {
  /** Frozen configuration per target name; targets without one use `fallbackConfig`. */
  frozen: Record<string, PaceConfig>;
  /** Nested search grid; null skips the nested search. */
  nested: Grid | null;
  baselines: BaselineName[];
  /** Budgets for the frozen-settings budget curve (empty = none). */
  budgetCurve: number[];
  /** Evaluate only the first N outer folds (benchmarks); all by default. */
  maxFolds?: number;
  /**
   * Outer loop: `auto` (default) is leave-one-out up to `foldProtocol.leaveOneOutUpTo` models and
   * `foldProtocol.folds`-fold above; `leave-one-out` or a number of folds forces one.
   */
  outerFolds?: 'auto' | 'leave-one-out' | number;
  /** Measure the empirical coverage of the frozen-settings prediction intervals (inner cross-validation per fold). */
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
  /**
   * Empirical coverage of this row's prediction intervals at 80% and 95% (with coverage only): in
   * each outer fold, conformal from this row's own cross-validated residuals over the fold's
   * training models (never the held-out model's), widened to the label-noise interval for PACE-based rows.
   */
  coverage?: CoverageTally[];
  /** Per model (TargetReport.models order), the first level's interval [lower, upper] on the internal scale; null when not evaluated. */
  intervals?: Array<[number, number] | null>;
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
  /** The same for the `shipped-tuned` row (`fit --tune`: forms on the nested search's settings; with coverage and the nested search only). */
  shippedTunedChoices: Array<{ heldOut: string; kind: ShippedKind }>;
  budgetCurve: Array<{ budget: number; metrics: AbsoluteMetrics; pairAccuracy: number; goalBPairAccuracy: number }>;
  guardedPredictions: number;
  /** Per method (not the mean itself): paired difference to the mean predictor, bootstrap over models. */
  comparisons: Array<{ method: string; vsMean: PairedComparison }>;
  /** Which cross-validation ran: the outer loop, and the inner loops over each outer fold's training models. */
  protocol: ProtocolReport;
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

export interface ProtocolReport {
  outer: { kind: FoldPlan['kind']; folds: number; evaluated: number };
  /** Inner loops (nested search, the shipped row's form choice): by the size of the outer training sets. */
  inner: { kind: FoldPlan['kind'] | 'mixed'; folds: number | null };
  /** Loops over more models than this are K-fold unless `outerFolds` forces the outer one. */
  leaveOneOutUpTo: number;
}

interface Accumulator {
  predictions: Array<number | null>;
  pairs: PairTally;
  goalB?: PairTally;
  coverage?: { tallies: CoverageTally[]; intervals: Array<[number, number] | null> };
}

function newAcc(n: number, goalB = false): Accumulator {
  return { predictions: new Array(n).fill(null), pairs: { correct: 0, pairs: 0 }, ...(goalB ? { goalB: { correct: 0, pairs: 0 } } : {}) };
}

/**
 * Scores the interval a row would have issued for held-out model k: conformal from `residuals`
 * (that row's cross-validated residuals over the fold's training models only).
 */
function cover(acc: Accumulator, k: number, n: number, truth: number, point: number, residuals: Float64Array, replicates: number[], scale: PreparedTarget['scale'], tallies?: CoverageTally[]): void {
  acc.coverage ??= { tallies: tallies ?? newCoverage(), intervals: new Array(n).fill(null) };
  const ivs = addCoverage(acc.coverage.tallies, truth, point, residuals, replicates, scale);
  acc.coverage.intervals[k] = [ivs[0]!.lower, ivs[0]!.upper];
}

/** y − ŷ over the training models `idx`. */
function residualsOf(target: PreparedTarget, idx: Int32Array, predictions: Float64Array): Float64Array {
  return Float64Array.from(predictions, (p, t) => (target.y[idx[t] as number] as number) - p);
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
    ...(acc.coverage ? { coverage: acc.coverage.tallies, intervals: acc.coverage.intervals } : {}),
  };
}

export async function runLoocv(data: PaceData, options: LoocvOptions): Promise<LoocvReport> {
  await loadDense();
  const reports: TargetReport[] = [];
  const rng = new Rng(options.seed);
  const protocol = options.foldProtocol ?? defaultFoldProtocol;
  const outerPlan = (t: PreparedTarget) => {
    const force = options.outerFolds === undefined || options.outerFolds === 'auto' ? undefined : options.outerFolds;
    const plan = planFolds(Array.from(t.rows, (r) => data.models[r] as string), 'outer', protocol, force);
    return { plan, members: foldMembers(plan) };
  };
  const plans = new Map(data.targets.map((t) => [t, outerPlan(t)]));
  const foldsTotal = data.targets.reduce((n, t) => n + Math.min(plans.get(t)!.members.length, options.maxFolds ?? Infinity), 0);
  let foldsDone = 0;
  for (const target of data.targets) {
    const n = target.rows.length;
    const { plan, members } = plans.get(target)!;
    const loo = plan.kind === 'leave-one-out';
    const folds = Math.min(members.length, options.maxFolds ?? members.length);
    const frozen = options.frozen[target.name] ?? fallbackConfig;
    const shared = options.svdScope === 'all' ? computeGlobalBasis(data, Int32Array.from(data.models.keys()), `${options.seed}/svd/all`) : null;
    const paceFrozen = newAcc(n, true);
    const shipped = newAcc(n);
    const shippedTuned = newAcc(n);
    const shippedByKind = new Map(shippedKinds.map((kind) => [kind, newAcc(n)]));
    const paceNested = newAcc(n, true);
    const base = new Map(options.baselines.map((b) => [b, newAcc(n)]));
    const curve = new Map(options.budgetCurve.map((c) => [c, newAcc(n, true)]));
    const nestedChoices: TargetReport['nestedChoices'] = [];
    const shippedChoices: TargetReport['shippedChoices'] = [];
    const shippedTunedChoices: TargetReport['shippedTunedChoices'] = [];
    const cache = new Map<string, unknown>();
    let guarded = 0;
    const coverage = options.coverage === false ? [] : newCoverage();
    const nestedCoverage = options.coverage === false || !options.nested ? [] : newCoverage();
    // Training-set sizes decide the inner loops; pairs of inner folds are shared only when both loops are leave-one-out.
    const innerKinds = new Set<FoldPlan['kind']>();
    const innerShare = loo && n - 1 <= protocol.leaveOneOutUpTo && options.nested && InnerFoldShare.enabled(folds, gridSize(options.nested)) ? new InnerFoldShare(folds) : undefined;
    // The mean predictor every row is compared with: the same folds' training mean.
    const foldMean = new Array<number>(n).fill(NaN);
    let lassoBefore: Promise<LassoFit> | null = null;
    for (let f = 0; f < folds; f++) {
      const held = members[f]!;
      const inFold = new Uint8Array(n);
      for (const k of held) inFold[k] = 1;
      const heldNames = held.map((k) => data.models[target.rows[k] as number] as string);
      options.progress?.(`loocv ${target.name}: fold ${f + 1}/${folds} (${loo ? heldNames[0] : `${held.length} models`})`);
      options.onProgress?.(foldsDone++, foldsTotal, `LOOCV folds (${target.name})`);
      const trainIdx = Int32Array.from({ length: n }, (_, i) => i).filter((i) => !inFold[i]);
      innerKinds.add(trainIdx.length <= protocol.leaveOneOutUpTo ? 'leave-one-out' : 'k-fold');
      let trainMean = 0;
      for (const i of trainIdx) trainMean += target.y[i] as number;
      for (const k of held) foldMean[k] = trainMean / trainIdx.length;
      const heldRows = held.map((k) => target.rows[k] as number);
      // The nested search and the shipped row's inner folds are the same folds of these training
      // models. Shared under K-fold only: K bases per outer fold, where leave-one-out would hold n.
      const bases = trainIdx.length > protocol.leaveOneOutUpTo ? new BasisCache() : undefined;
      const basis = prepareFold(data, target, trainIdx, options, shared, true);
      // Lasso on every instance fits on a worker thread (where there is one) while the rest of the
      // fold runs here, starting from the previous fold's fit (the optimum is the same from any start).
      const lasso: Promise<LassoFit> | null = options.baselines.includes('lasso-all') ? startLassoAll(basis, lassoBefore) : null;
      lasso?.catch(() => undefined);
      lassoBefore = lasso;
      // The two ridge baselines likewise, on their own worker.
      if (options.baselines.includes('ridge-all')) startRidgeAll(basis, cache).catch(() => undefined);
      if (options.baselines.includes('benchmark-means')) startBenchmarkMeans(basis, cache).catch(() => undefined);
      const fit = fitTarget(basis, frozen, options.alpha);
      const preds = heldRows.map((row) => predictPoolRow(basis, fit, row));
      preds.forEach((pred, j) => {
        if (pred.guarded) guarded++;
        scorePairs(paceFrozen, held[j]!, pred.value, target, trainIdx, pred.margins);
      });
      // The shipped row faces what a checkpoint faces: its fold's universe comes from the training models only.
      const fold = foldView(data, heldRows);
      const shippedBasis = fold === data ? basis : prepareFold(fold, target, trainIdx, options, null);
      const shippedFit = (config: PaceConfig) => (fold === data && config === frozen ? fit : fitTarget(shippedBasis, config, null));
      const forms = shippedForms(shippedBasis, shippedFit(frozen));
      const points = heldRows.map((row) => shippedPoolPredictions(shippedBasis, forms, row));
      held.forEach((k, j) => {
        for (const kind of shippedKinds) scorePairs(shippedByKind.get(kind)!, k, points[j]![kind], target, trainIdx);
      });
      // Every row's own cross-validated residuals over this fold's training models (coverage only).
      let innerBaselines: Map<BaselineName, Float64Array> | null = null;
      if (coverage.length) {
        // The whole of what fit does, on this fold's training models: their own cross-validation
        // picks the form, and its residuals make the interval `check` would issue around it. The
        // same inner folds predict every other candidate, whose residuals make that row's interval.
        const inner = await crossValidatedPredictions(data, target, trainIdx, frozen, options, shared, options.baselines, protocol, bases, true, lasso);
        innerBaselines = inner.baselines;
        const byKind = new Map(shippedKinds.map((kind) => [kind, residualsOf(target, trainIdx, inner.byKind[kind])]));
        const frozenResiduals = residualsOf(target, trainIdx, inner.frozen!);
        held.forEach((k, j) => {
          const point = points[j]![inner.kind];
          const truth = target.y[k] as number;
          // PACE's label-noise replicates, moved to each form's point.
          const around = (p: number) => preds[j]!.replicates.map((r) => r - preds[j]!.value + p);
          shippedChoices.push({ heldOut: heldNames[j]!, kind: inner.kind });
          scorePairs(shipped, k, point, target, trainIdx);
          cover(shipped, k, n, truth, point, inner.residuals, around(point), target.scale, coverage);
          for (const kind of shippedKinds) cover(shippedByKind.get(kind)!, k, n, truth, points[j]![kind], byKind.get(kind)!, around(points[j]![kind]), target.scale);
          cover(paceFrozen, k, n, truth, preds[j]!.value, frozenResiduals, preds[j]!.replicates, target.scale);
        });
      }
      if (options.nested) {
        if (innerShare) innerShare.outer = held[0]!;
        const search = nestedSearch(data, target, trainIdx, options, options.nested, shared, innerShare, bases);
        const nestedFit = fitTarget(basis, search.config, options.alpha);
        held.forEach((k, j) => {
          nestedChoices.push({ heldOut: heldNames[j]!, config: search.config });
          const np = predictPoolRow(basis, nestedFit, heldRows[j]!);
          scorePairs(paceNested, k, np.value, target, trainIdx, np.margins);
          if (nestedCoverage.length) cover(paceNested, k, n, target.y[k] as number, np.value, search.residuals, np.replicates, target.scale, nestedCoverage);
        });
        if (coverage.length) {
          // What `fit --tune` does on these training models: the nested search's settings (chosen
          // above without the held-out models), then the form choice by their own cross-validation.
          const inner = await crossValidatedPredictions(data, target, trainIdx, search.config, options, shared, [], protocol, bases);
          const tunedForms = shippedForms(shippedBasis, shippedFit(search.config));
          held.forEach((k, j) => {
            const point = shippedPoolPredictions(shippedBasis, tunedForms, heldRows[j]!)[inner.kind];
            const np = predictPoolRow(basis, nestedFit, heldRows[j]!);
            shippedTunedChoices.push({ heldOut: heldNames[j]!, kind: inner.kind });
            scorePairs(shippedTuned, k, point, target, trainIdx);
            cover(shippedTuned, k, n, target.y[k] as number, point, inner.residuals, np.replicates.map((r) => r - np.value + point), target.scale);
          });
        }
      }
      for (const name of options.baselines) {
        // Leave-one-out keeps its per-model streams; a K-fold fold draws once for all its models.
        const stream = rng.fork(`${target.name}/${name}/${loo ? held[0] : `fold-${f}`}`);
        for (const [j, k] of held.entries()) {
          const value = await baselines[name].predict({ basis, testRow: heldRows[j]!, budget: frozen.budget, ncH: frozen.ncH, rng: stream, cache });
          scorePairs(base.get(name)!, k, value, target, trainIdx);
          // A baseline has no label-noise replicates: its interval is the conformal one alone.
          const inner = innerBaselines?.get(name);
          if (inner) cover(base.get(name)!, k, n, target.y[k] as number, value, residualsOf(target, trainIdx, inner), [], target.scale);
        }
      }
      for (const budget of options.budgetCurve) {
        const cf = fitTarget(basis, { ...frozen, budget }, options.alpha);
        held.forEach((k, j) => {
          const cp = predictPoolRow(basis, cf, heldRows[j]!);
          scorePairs(curve.get(budget)!, k, cp.value, target, trainIdx, cp.margins);
        });
      }
    }
    // The target's folds are done (a benchmark times the folds apart from the summary below).
    options.onProgress?.(foldsDone, foldsTotal, `LOOCV folds (${target.name})`);
    const methods: MethodResult[] = [
      // Only with coverage: the form choice needs each fold's inner cross-validation.
      ...(coverage.length ? [finishMethod('shipped', 'shipped: in each fold, the form the training models’ own cross-validation picks (the simplest one not significantly worse; what fit writes and check uses)', shipped, target)] : []),
      ...(coverage.length && options.nested ? [finishMethod('shipped-tuned', 'shipped with tuned settings (fit --tune): in each fold, the forms on the nested search’s settings, the form chosen as for shipped', shippedTuned, target)] : []),
      ...shippedKinds.map((kind) => finishMethod(`shipped-${kind}`, `shippable form "${kind}": ${shippedPredictors[kind].title}, clipped to the target range`, shippedByKind.get(kind)!, target)),
      finishMethod('pace-frozen', `PACE, frozen settings (C=${frozen.budget}, q=${frozen.q}, m=${frozen.m}, nc_h=${frozen.ncH}, nc_d=${frozen.ncD})`, paceFrozen, target),
    ];
    if (options.nested) methods.push(finishMethod('pace-nested', `PACE, settings tuned by nested ${innerKinds.has('k-fold') ? 'cross-validation' : 'leave-one-out'} inside each fold`, paceNested, target));
    for (const name of options.baselines) methods.push(finishMethod(name, baselines[name].title, base.get(name)!, target));
    const comparisons = compareWithMean(methods, target, loo ? looMeanPredictions(target.y) : foldMean, rng.fork(`${target.name}/models-bootstrap`));
    const innerKind = innerKinds.size === 1 ? [...innerKinds][0]! : 'mixed';
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
      shippedTunedChoices,
      budgetCurve: options.budgetCurve.map((budget) => {
        const r = finishMethod(`C=${budget}`, '', curve.get(budget)!, target);
        return { budget, metrics: r.metrics, pairAccuracy: r.pairAccuracy, goalBPairAccuracy: r.goalBPairAccuracy ?? NaN };
      }),
      guardedPredictions: guarded,
      comparisons,
      protocol: {
        outer: { kind: plan.kind, folds: plan.kind === 'leave-one-out' ? n : members.length, evaluated: folds },
        inner: { kind: innerKind, folds: innerKind === 'leave-one-out' ? null : protocol.folds },
        leaveOneOutUpTo: protocol.leaveOneOutUpTo,
      },
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

/** Paired differences to the mean predictor of the same folds, on the folds every compared method has. */
function compareWithMean(methods: MethodResult[], target: PreparedTarget, mean: ArrayLike<number>, rng: Rng): TargetReport['comparisons'] {
  const out: TargetReport['comparisons'] = [];
  const rows = methods.flatMap((m) => {
    if (m.method === 'mean') return [];
    const keep = m.predictions.flatMap((p, k) => (p === null ? [] : [k]));
    return keep.length < 3 ? [] : [{ m, keep, differences: absoluteErrorDifferences(keep.map((k) => target.y[k] as number), keep.map((k) => m.predictions[k] as number), keep.map((k) => mean[k] as number)) }];
  });
  // Methods over the same models share one draw of the sign-flip stream (bit-identical to one test each).
  const tests = new Map<(typeof rows)[number], SignFlipResult>();
  const groups = new Map<string, typeof rows>();
  for (const row of rows) {
    const key = row.keep.join(',');
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  for (const group of groups.values()) signFlipTests(group.map((r) => r.differences)).forEach((t, i) => tests.set(group[i]!, t));
  for (const row of rows) {
    const { m, keep } = row;
    const resamples = bootstrapIndices(keep.length, modelBootstrap, rng.fork(m.method));
    const truth = keep.map((k) => target.y[k] as number);
    out.push({ method: m.method, vsMean: pairedComparison(truth, keep.map((k) => m.predictions[k] as number), keep.map((k) => mean[k] as number), resamples, undefined, tests.get(row)) });
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
