/**
 * What every shippable form is built from, and the two ways they are calibrated. A shippable
 * form is a non-negative linear form over PACE's proxy items plus an intercept (monotone.ts):
 * `check` only has the checkpoint's proxy items, so nothing else can enter it, and non-negative
 * weights make it monotone (a superset of items right never lowers the prediction). The Python
 * mirror of the proxy suite (templates/proxy-suite/aptpace_pace.py `_monotone`) evaluates any
 * such form, so a new kind needs no change there.
 */
import { mean, type MatrixView } from '../numerics/kernels.js';
import type { ColumnLinearForm, MonotoneForm } from './monotone.js';
import { ols1d } from './goal-a.js';

export interface ShippedFormInput {
  /** PACE's unguarded Goal A prediction as a linear form over the proxy (selected) columns. */
  linear: ColumnLinearForm;
  view: MatrixView;
  /** Pool rows of the training models (every proxy column is observed for them). */
  trainRows: Int32Array;
  yTrain: ArrayLike<number>;
  taskOf: (col: number) => string;
}

/** A training row's score on a view column. */
export function viewCell(view: MatrixView, row: number, c: number): number {
  return view.data[(view.rows[row] as number) * view.stride + (view.cols ? (view.cols[c] as number) : c)] as number;
}

/** intercept + Σ weight·x over the proxy columns; zero weights are left out. */
export function formFromWeights(input: ShippedFormInput, intercept: number, weights: Map<number, number>): MonotoneForm {
  const cols = [...weights].filter(([, w]) => w > 0).map(([c]) => c).sort((a, b) => a - b);
  return {
    intercept,
    cols: Int32Array.from(cols),
    weights: Float64Array.from(cols, (c) => weights.get(c) as number),
    tasks: cols.map(input.taskOf),
    allCols: input.linear.cols,
    allTasks: Array.from(input.linear.cols, input.taskOf),
  };
}

/**
 * y ≈ a + b·Σ raw·x over the training models, by least squares with b ≥ 0 (b = 0 leaves the
 * training mean): one non-negative scale on fixed non-negative item weights.
 */
export function rescaledForm(input: ShippedFormInput, raw: Map<number, number>): MonotoneForm {
  const { view, trainRows, yTrain } = input;
  const entries = [...raw];
  const s = Float64Array.from(trainRows, (r) => entries.reduce((acc, [c, w]) => acc + w * viewCell(view, r, c), 0));
  const fit = ols1d(s, yTrain);
  // A non-positive slope leaves the training mean: the form may not rank a checkpoint backwards.
  const slope = Math.max(0, fit.slope);
  return formFromWeights(input, slope > 0 ? fit.intercept : mean(yTrain), new Map(entries.map(([c, w]) => [c, w * slope])));
}
