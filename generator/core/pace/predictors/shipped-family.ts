/**
 * The shippable predictors — the only ones `fit` may write into a model file — in order of
 * simplicity (fewest numbers fitted first). Each is a non-negative linear form over PACE's proxy
 * items plus an intercept, clipped to the target's range: monotone and bounded, and computable
 * from the checkpoint's proxy logs alone. `fit` picks among them by cross-validation on the
 * training models only (evaluation/shipped-selection.ts), preferring the earlier one when the
 * difference is not significant. Predictors that need more than the proxy items, or whose
 * weights can be negative, are reported by `evaluate` only (baselines.ts, `notShippedBecause`).
 */
import type { FoldBasis, TargetFit } from '../pipeline.js';
import { targetBounds } from '../evaluation/conformal.js';
import { clipToBounds, columnLinearForm, monotoneViewRow, type ColumnLinearForm, type MonotoneForm } from './monotone.js';
import type { MatrixView } from '../numerics/kernels.js';
import type { ShippedFormInput } from './shipped-form.js';
import { shippedAccuracy } from './shipped-accuracy.js';
import { shippedBenchmarkAccuracy } from './shipped-benchmark-accuracy.js';
import { shippedWeighted } from './shipped-weighted.js';
import { shippedEnsemble } from './shipped-ensemble.js';

export type ShippedKind = 'accuracy' | 'benchmark-accuracy' | 'weighted' | 'ensemble';

export interface ShippedPredictor {
  title: string;
  /** `built`: the forms earlier in the registry, on the same training models. */
  build(input: ShippedFormInput, built: Readonly<Record<ShippedKind, MonotoneForm>>): MonotoneForm;
}

/** Simplest first: the order `fit` falls back along when a difference is not significant. */
export const shippedPredictors = {
  accuracy: shippedAccuracy,
  'benchmark-accuracy': shippedBenchmarkAccuracy,
  weighted: shippedWeighted,
  ensemble: shippedEnsemble,
} satisfies Record<ShippedKind, ShippedPredictor>;

export const shippedKinds = Object.keys(shippedPredictors) as ShippedKind[];

/** Every shippable form on one set of training models, in registry order. */
export function buildShippedForms(linear: ColumnLinearForm, view: MatrixView, trainRows: Int32Array, yTrain: ArrayLike<number>, taskOf: (col: number) => string): Record<ShippedKind, MonotoneForm> {
  const input: ShippedFormInput = { linear, view, trainRows, yTrain, taskOf };
  const built = {} as Record<ShippedKind, MonotoneForm>;
  for (const kind of shippedKinds) built[kind] = shippedPredictors[kind].build(input, built);
  return built;
}

/** Every shippable form of a fold's fit (built once per fold, applied to each of its held-out rows). */
export function shippedForms(basis: FoldBasis, fit: TargetFit): Record<ShippedKind, MonotoneForm> {
  const { data } = basis;
  return buildShippedForms(columnLinearForm(fit), data.view, basis.trainRows, basis.yTrain, (c) => data.instances[c]!.task);
}

/** Every shippable prediction for one pool row (internal scale, clipped). */
export function shippedPoolPredictions(basis: FoldBasis, forms: Record<ShippedKind, MonotoneForm>, row: number): Record<ShippedKind, number> {
  const { data, target } = basis;
  // The row's unobserved cells (a held-out model's own gaps in its fold's universe) are gaps here too.
  const at = (kind: ShippedKind) => clipToBounds(monotoneViewRow(forms[kind], data.view, row, data.matrix.observed) ?? basis.stats.yMean, targetBounds(target.scale));
  return Object.fromEntries(shippedKinds.map((kind) => [kind, at(kind)])) as Record<ShippedKind, number>;
}
