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
 * the target's valid range. The shippable forms built on it are in shipped-*.ts, their ordered
 * registry in shipped-family.ts; cross-validation (evaluation/coverage.ts) scores exactly these
 * predictors, so the skill verdict and the conformal intervals describe what `check` uses.
 */
import type { MatrixView } from '../numerics/kernels.js';
import type { PartFit, TargetFit } from '../pipeline.js';

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
