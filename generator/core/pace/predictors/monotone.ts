/**
 * The predictor `fit` ships: PACE's Goal A made monotone and bounded.
 *
 * For a fully observed row, PACE's (unguarded) Goal A prediction is linear in the proxy scores:
 * intercept + Σ w_c x_c (the embeddings are linear, Goal A is 1-D OLS on a weighted sum of the
 * coordinates). Some w_c are negative, so answering one more proxy item right can lower the
 * prediction, and a checkpoint that answers a superset of a pool model's items can be predicted
 * below it. The shipped predictor keeps the positive weights' proportions, drops the negative
 * ones and refits one non-negative scale and an intercept on the training models, so the
 * prediction never decreases when an item goes from wrong to right. An
 * unobserved proxy item takes the checkpoint's own mean over its observed items of the same
 * task (all its observed items when it has none there): also non-decreasing in every observed
 * score, and never the pool's level for a checkpoint far from the pool. The value is clipped to
 * the target's valid range. Cross-validation (coverage.ts) scores exactly this predictor, so the
 * skill verdict and the conformal intervals describe what `check` uses.
 */
import type { MatrixView } from '../numerics/kernels.js';
import type { FoldBasis, PartFit, TargetFit } from '../pipeline.js';
import { targetBounds } from '../evaluation/conformal.js';

export interface ColumnLinearForm {
  intercept: number;
  /** View columns with a non-zero weight, ascending. */
  cols: Int32Array;
  weights: Float64Array;
}

/** The unguarded Goal A prediction as intercept + Σ weight·score over view columns. */
export function columnLinearForm(fit: TargetFit): ColumnLinearForm {
  const weights = new Map<number, number>();
  let intercept = 0;
  const sides: Array<[PartFit | null, number]> = [
    [fit.local, fit.local && fit.global ? fit.effectiveM : fit.local ? 1 : 0],
    [fit.global, fit.local && fit.global ? 1 - fit.effectiveM : fit.global ? 1 : 0],
  ];
  for (const [part, share] of sides) {
    if (!part || share === 0) continue;
    const { embedding: e, goalA } = part;
    intercept += share * goalA.intercept;
    e.cols.forEach((c, s) => {
      let w = 0;
      for (let j = 0; j < e.k; j++) w += (e.proj[s * e.k + j] as number) * (goalA.weights[j] as number);
      weights.set(c, (weights.get(c) ?? 0) + share * goalA.slope * w);
    });
  }
  const cols = Int32Array.from([...weights.keys()].sort((a, b) => a - b));
  return { intercept, cols, weights: Float64Array.from(cols, (c) => weights.get(c) as number) };
}

export interface MonotoneForm {
  /** Intercept plus every negative-weight item held at its training mean. */
  intercept: number;
  /** Proxy columns with a positive weight, ascending. */
  cols: Int32Array;
  weights: Float64Array;
  /** Task of each kept column (for the own-mean fill of an unobserved item). */
  tasks: string[];
  /** Every proxy column of the form (kept or held), with its task: the items whose observed scores fill a gap. */
  allCols: Int32Array;
  allTasks: string[];
}

/** A training row's score on a view column. */
function cell(view: MatrixView, row: number, c: number): number {
  return view.data[(view.rows[row] as number) * view.stride + (view.cols ? (view.cols[c] as number) : c)] as number;
}

/**
 * Keeps PACE's positive weights (their relative sizes carry what PACE learned about each item),
 * drops the negative ones, and recalibrates the scale on the training models: y ≈ a + b·Σ w⁺x
 * by least squares with b ≥ 0 (b = 0 leaves the training mean). Dropping the negative weights
 * without recalibrating would inflate the slope: PACE's positive weights are sized to be offset
 * by the negative ones.
 */
/**
 * The two monotone forms `fit` chooses between by cross-validated MAE (coverage.ts):
 * - `weighted`: PACE's positive per-item weights, rescaled (below);
 * - `accuracy`: every PACE-selected item weighted alike, i.e. the checkpoint's mean score on the
 *   proxy set, rescaled. Where PACE's weights are noisy (few models, one dominant factor) the
 *   plain proxy accuracy predicts better; where several factors matter, the weights do.
 */
export const shippedKinds = ['weighted', 'accuracy'] as const;
export type ShippedKind = (typeof shippedKinds)[number];

export function monotoneForm(form: ColumnLinearForm, view: MatrixView, trainRows: Int32Array, taskOf: (col: number) => string, yTrain: ArrayLike<number>, kind: ShippedKind = 'weighted'): MonotoneForm {
  const cols: number[] = [];
  const raw: number[] = [];
  form.cols.forEach((c, i) => {
    const w = kind === 'accuracy' ? 1 : (form.weights[i] as number);
    if (w > 0) {
      cols.push(c);
      raw.push(w);
    }
  });
  const n = trainRows.length;
  const s = Float64Array.from(trainRows, (r) => raw.reduce((acc, w, i) => acc + w * cell(view, r, cols[i]!), 0));
  let sm = 0;
  let ym = 0;
  for (let i = 0; i < n; i++) {
    sm += s[i]! / n;
    ym += (yTrain[i] as number) / n;
  }
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (s[i]! - sm) * ((yTrain[i] as number) - ym);
    sxx += (s[i]! - sm) ** 2;
  }
  const slope = sxx > 0 && sxy > 0 ? sxy / sxx : 0;
  return {
    intercept: ym - slope * sm,
    cols: Int32Array.from(slope > 0 ? cols : []),
    weights: Float64Array.from(slope > 0 ? raw.map((w) => w * slope) : []),
    tasks: (slope > 0 ? cols : []).map(taskOf),
    allCols: form.cols,
    allTasks: Array.from(form.cols, taskOf),
  };
}

/**
 * The shipped prediction (internal scale, before clipping) from a score lookup over proxy items
 * (NaN = unobserved); null when no proxy item is observed at all.
 */
export function monotoneValue(
  form: { intercept: number; weights: ArrayLike<number>; tasks: string[]; allTasks: string[] },
  keptScore: (i: number) => number,
  anyScore: (i: number) => number,
): number | null {
  const byTask = new Map<string, { sum: number; n: number }>();
  let sum = 0;
  let n = 0;
  for (let i = 0; i < form.allTasks.length; i++) {
    const x = anyScore(i);
    if (Number.isNaN(x)) continue;
    const t = byTask.get(form.allTasks[i]!) ?? { sum: 0, n: 0 };
    t.sum += x;
    t.n++;
    byTask.set(form.allTasks[i]!, t);
    sum += x;
    n++;
  }
  if (n === 0) return null;
  let value = form.intercept;
  for (let i = 0; i < form.tasks.length; i++) {
    let x = keptScore(i);
    if (Number.isNaN(x)) {
      const t = byTask.get(form.tasks[i]!);
      x = t ? t.sum / t.n : sum / n;
    }
    value += (form.weights[i] as number) * x;
  }
  return value;
}

/** A value clipped into the target's valid range (internal scale). */
export function clipToBounds(value: number, bounds: [number, number]): number {
  return Math.min(bounds[1], Math.max(bounds[0], value));
}

/** The shipped prediction for a pool row of the view (missing cells are NaN through `observed`). */
export function monotoneViewRow(form: MonotoneForm, view: MatrixView, row: number, observed?: Uint8Array): number | null {
  const base = (view.rows[row] as number) * view.stride;
  const at = (c: number) => {
    const col = view.cols ? (view.cols[c] as number) : c;
    if (observed && !observed[base + col]) return NaN;
    return view.data[base + col] as number;
  };
  return monotoneValue(
    form,
    (i) => at(form.cols[i] as number),
    (i) => at(form.allCols[i] as number),
  );
}

/** Both shipped forms of a fold's fit (built once per fold, applied to each of its held-out rows). */
export function shippedForms(basis: FoldBasis, fit: TargetFit): Record<ShippedKind, MonotoneForm> {
  const { data } = basis;
  const linear = columnLinearForm(fit);
  return Object.fromEntries(shippedKinds.map((kind) => [kind, monotoneForm(linear, data.view, basis.trainRows, (c) => data.instances[c]!.task, basis.yTrain, kind)])) as Record<ShippedKind, MonotoneForm>;
}

/** The shipped prediction for one pool row (internal scale, clipped), per form. */
export function shippedPoolPredictions(basis: FoldBasis, forms: Record<ShippedKind, MonotoneForm>, row: number): Record<ShippedKind, number> {
  const { data, target } = basis;
  // The row's unobserved cells (a held-out model's own gaps in its fold's universe) are gaps here too.
  const at = (kind: ShippedKind) => clipToBounds(monotoneViewRow(forms[kind], data.view, row, data.matrix.observed) ?? basis.stats.yMean, targetBounds(target.scale));
  return Object.fromEntries(shippedKinds.map((kind) => [kind, at(kind)])) as Record<ShippedKind, number>;
}
