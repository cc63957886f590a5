/**
 * Paired comparison of a method's leave-one-out predictions with a baseline's (the mean
 * predictor's by default). The verdict comes from an exact sign-flip test of the per-model
 * absolute-error differences (sign-flip.ts), which does not depend on any seed, and needs at
 * least `minimumModelsForSkill` models; the percentile bootstrap over models gives the intervals
 * that describe each metric's difference.
 */
import type { Rng } from '../../kernel/rng.js';
import { absoluteMetrics, errorMetrics } from './metrics.js';
import { minimumModelsForSkill, signFlipTest, type SignFlipResult } from './sign-flip.js';

export const comparisonMetrics = ['mae', 'spearman', 'r2', 'pairAccuracy'] as const;
export type ComparisonMetric = (typeof comparisonMetrics)[number];

export interface MetricDifference {
  /** method − baseline on all models (for MAE, negative = the method errs less). */
  difference: number;
  /** Percentile bootstrap interval of the difference; NaN bounds when too few replicates were defined. */
  interval: [number, number];
  /** Replicates where the metric was defined for both (Spearman / R² need varying values). */
  replicates: number;
}

export type Verdict = 'better' | 'worse' | 'no-demonstrated-difference' | 'too-few-models';

/** Two-sided level of the sign-flip test behind every better/worse verdict. */
export const verdictAlpha = 0.05;

export interface PairedComparison {
  level: number;
  bootstrap: number;
  models: number;
  metrics: Record<ComparisonMetric, MetricDifference>;
  /** Sign-flip test of the per-model absolute-error differences. */
  test: SignFlipResult;
  /** better/worse only when the two-sided sign-flip p is below `verdictAlpha` with at least `minimumModelsForSkill` models. */
  verdict: Verdict;
  /** When several methods are compared with the same baseline (evaluate): Holm's correction over the family, and the verdict it gives. */
  adjusted?: { method: 'holm'; family: number; p: number; verdict: Verdict };
}

/** The verdict of a paired absolute-error comparison (method − baseline per model). */
export function maeVerdict(test: SignFlipResult): Verdict {
  if (test.models < minimumModelsForSkill) return 'too-few-models';
  if (test.pTwoSided >= verdictAlpha) return 'no-demonstrated-difference';
  return test.meanDifference < 0 ? 'better' : 'worse';
}

/** Per-model |y − pred| − |y − base|. */
export function absoluteErrorDifferences(truth: ArrayLike<number>, pred: ArrayLike<number>, base: ArrayLike<number>): Float64Array {
  return Float64Array.from({ length: truth.length }, (_, i) => Math.abs((truth[i] as number) - (pred[i] as number)) - Math.abs((truth[i] as number) - (base[i] as number)));
}

/** numpy.percentile's default (linear) on an ascending array. */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

/**
 * Share of ordered pairs (i, j), i ≠ j, y_i ≠ y_j, where the prediction for i sits on the same side
 * of y_j as y_i does (the leave-one-out pair accuracy of point predictions); ties count half.
 */
export function pointPairAccuracy(truth: ArrayLike<number>, pred: ArrayLike<number>, sortedTruth?: Float64Array): number {
  // O(n log n) over the sorted truths (evaluate and the skill bootstrap call it thousands of
  // times; the direct double loop made a 500-model fit spend half its time here). For model i,
  // the pairs it gets right are the j whose truth lies below both y_i and ŷ_i or above both.
  // `sortedTruth`: the truths sorted ascending, when the caller scores several predictions of them.
  const sorted = sortedTruth ?? Float64Array.from(truth).sort();
  const n = sorted.length;
  let correct = 0;
  let pairs = 0;
  for (let i = 0; i < n; i++) {
    const y = truth[i] as number;
    const p = pred[i] as number;
    pairs += n - (upperBound(sorted, y) - lowerBound(sorted, y));
    if (Number.isNaN(p)) continue;
    correct += lowerBound(sorted, Math.min(y, p)) + (n - upperBound(sorted, Math.max(y, p)));
    if (p !== y) correct += 0.5 * (upperBound(sorted, p) - lowerBound(sorted, p));
  }
  return pairs ? correct / pairs : NaN;
}

/** First index whose value is ≥ x. */
function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((a[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose value is > x. */
function upperBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `isBaseline`: the leave-one-out mean's Spearman is −1 by construction (each prediction falls as
 * its own truth rises), which would flatter every method; a constant carries no order, so the
 * Spearman floor is 0 and the baseline's Spearman is taken as 0.
 */
function metricValues(truth: number[], pred: number[], isBaseline = false, sortedTruth?: Float64Array): Record<ComparisonMetric, number> {
  if (isBaseline) {
    // The baseline's Spearman is not used (see above): skip its two rankings, the bulk of the cost.
    const { mae, r2 } = errorMetrics(truth, pred);
    return { mae, spearman: 0, r2, pairAccuracy: pointPairAccuracy(truth, pred, sortedTruth) };
  }
  const a = absoluteMetrics(truth, pred);
  return { mae: a.mae, spearman: a.spearman, r2: a.r2, pairAccuracy: pointPairAccuracy(truth, pred, sortedTruth) };
}

/** B resamples of n model indices, drawn with replacement. */
export function bootstrapIndices(n: number, replicates: number, rng: Rng): Int32Array[] {
  const out: Int32Array[] = [];
  for (let b = 0; b < replicates; b++) out.push(Int32Array.from({ length: n }, () => rng.int(n)));
  return out;
}

/** Paired comparison on explicit resamples (so a test can hand the same ones to numpy). */
export function pairedComparison(truth: number[], pred: number[], base: number[], resamples: Int32Array[], level = 0.95, signFlip?: SignFlipResult): PairedComparison {
  const full = metricValues(truth, pred);
  const fullBase = metricValues(truth, base, true);
  const reps: Record<ComparisonMetric, number[]> = { mae: [], spearman: [], r2: [], pairAccuracy: [] };
  for (const idx of resamples) {
    const t = Array.from(idx, (i) => truth[i] as number);
    const sortedT = Float64Array.from(t).sort();
    const a = metricValues(t, Array.from(idx, (i) => pred[i] as number), false, sortedT);
    const b = metricValues(t, Array.from(idx, (i) => base[i] as number), true, sortedT);
    for (const k of comparisonMetrics) {
      const d = a[k] - b[k];
      if (Number.isFinite(d)) reps[k].push(d);
    }
  }
  const tail = (1 - level) / 2;
  const metrics = Object.fromEntries(
    comparisonMetrics.map((k) => {
      const sorted = reps[k].sort((x, y) => x - y);
      // Fewer than half the replicates defined: the interval would describe a selected subset.
      const ok = sorted.length >= resamples.length / 2 && sorted.length > 1;
      return [k, { difference: full[k] - fullBase[k], interval: ok ? [percentileSorted(sorted, tail), percentileSorted(sorted, 1 - tail)] : [NaN, NaN], replicates: sorted.length }];
    }),
  ) as Record<ComparisonMetric, MetricDifference>;
  // `signFlip`: the same test computed by the caller (signFlipTests shares one stream among several).
  const test = signFlip ?? signFlipTest(absoluteErrorDifferences(truth, pred, base));
  return { level, bootstrap: resamples.length, models: truth.length, metrics, test, verdict: maeVerdict(test) };
}

/** Leave-one-out predictions of the mean predictor: the mean of the other models' scores. */
export function looMeanPredictions(truth: ArrayLike<number>): number[] {
  let sum = 0;
  for (let i = 0; i < truth.length; i++) sum += truth[i] as number;
  return Array.from(truth, (y) => (sum - y) / (truth.length - 1));
}

/** p-value for people: 3 significant digits, "< 0.001" below that. */
export function formatPValue(p: number): string {
  return p < 0.001 ? '< 0.001' : `= ${p.toPrecision(2)}`;
}

/** Why a skill verdict is what it is, in words shared by fit, evaluate, check and the reports. */
export function skillVerdictWords(s: { verdict: Verdict; pValue?: number; models: number }, against = 'the mean predictor'): string {
  const p = s.pValue === undefined ? '' : ` (sign-flip p ${formatPValue(s.pValue)})`;
  switch (s.verdict) {
    case 'better':
      return `errs less than ${against} over ${s.models} models${p}`;
    case 'worse':
      return `errs more than ${against} over ${s.models} models${p}`;
    case 'too-few-models':
      return `cannot be told apart from ${against}: not enough models to tell (n = ${s.models}, need ≥ ${minimumModelsForSkill})`;
    default:
      return `shows no demonstrated difference from ${against} over ${s.models} models${p}`;
  }
}
