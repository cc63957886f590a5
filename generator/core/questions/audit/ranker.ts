/**
 * The learned adversary's model: L2-regularised logistic regression on features standardised
 * within each question, fitted by Newton's method. It minimises the same objective as
 * scikit-learn's `LogisticRegression(C=c)` with the lbfgs solver (the intercept is not
 * penalised), so its coefficients can be checked against it. A question is answered by the
 * option with the highest score.
 */

export interface LogisticModel {
  weights: number[];
  intercept: number;
  iterations: number;
}

/** Each question's rows standardised per column: (x − mean) / sd over its options; a constant column is 0. */
export function standardiseWithin(rows: readonly (readonly number[])[]): number[][] {
  const k = rows.length;
  if (k === 0) return [];
  const d = rows[0]!.length;
  const out = rows.map(() => new Array<number>(d).fill(0));
  for (let j = 0; j < d; j++) {
    let mean = 0;
    for (const r of rows) mean += r[j]!;
    mean /= k;
    let variance = 0;
    for (const r of rows) variance += (r[j]! - mean) ** 2;
    const sd = Math.sqrt(variance / k);
    if (sd < 1e-9) continue;
    for (let i = 0; i < k; i++) out[i]![j] = (rows[i]![j]! - mean) / sd;
  }
  return out;
}

/**
 * Fits min ½‖w‖² + C·Σ log(1 + exp(−yᵢ(w·xᵢ + b))) with labels in {0, 1}. Deterministic: a fixed
 * iteration order, Newton steps with step-halving until the objective falls, from zero or from
 * `start` (weights then intercept).
 */
export function fitLogistic(x: readonly (readonly number[])[], y: readonly number[], c = 1, maxIterations = 50, start?: readonly number[], curvature?: LogisticCurvature): LogisticModel {
  const d = x[0]?.length ?? 0;
  const D = d + 1;
  // Rows with a trailing 1 for the intercept, flat: the Hessian's inner loop runs over one typed row.
  const rows = new Float64Array(x.length * D);
  x.forEach((row, i) => {
    for (let j = 0; j < d; j++) rows[i * D + j] = row[j]!;
    rows[i * D + d] = 1;
  });
  return fitLogisticFlat(rows, d, y, c, maxIterations, start, curvature);
}

/** The same fit on rows given flat, each with a trailing 1: row i's column j at rows[i·(d + 1) + j], rows[i·(d + 1) + d] = 1. */
export function fitLogisticFlat(rows: Float64Array, d: number, y: ArrayLike<number>, c = 1, maxIterations = 50, start?: readonly number[], curvature?: LogisticCurvature): LogisticModel {
  const D = d + 1;
  const n = y.length;
  // Last entry is the intercept. A start (weights then intercept, from a fit on nearly the same
  // rows) only shortens the path: the objective is strictly convex, its minimum is the same. From
  // such a start the Hessian is computed once and kept for CHORD_STEPS steps (a chord or simplified
  // Newton method): each of those costs one pass over the rows instead of a pass times the columns,
  // and the step-halving line search still makes every step lower the objective. A given
  // `curvature` (the Hessian of that earlier fit, scaled to these rows) stands in for the first.
  const warm = start !== undefined && start.length === D;
  const w = warm ? [...start] : new Array<number>(D).fill(0);
  const given = warm && curvature !== undefined && curvature.hessian.length === D * D && curvature.rows > 0;
  const objective = (v: readonly number[]) => {
    let loss = 0;
    for (let j = 0; j < d; j++) loss += 0.5 * v[j]! * v[j]!;
    for (let i = 0; i < n; i++) {
      const z = flatDot(v, rows, i * D, d) + v[d]!;
      loss += c * softplus(y[i] ? -z : z);
    }
    return loss;
  };
  let current = objective(w);
  let iterations = 0;
  const hessian = new Float64Array(D * D);
  if (given) {
    // The data part of the Hessian grows with the rows; the penalty's identity does not.
    const scale = n / curvature.rows;
    for (let k = 0; k < D * D; k++) hessian[k] = scale * curvature.hessian[k]!;
    for (let j = 0; j < d; j++) hessian[j * D + j]! += 1 - scale;
  }
  let sinceFresh = given ? 0 : CHORD_STEPS;
  for (; iterations < maxIterations; iterations++) {
    const gradient = new Array<number>(D).fill(0);
    const fresh = !warm || sinceFresh >= CHORD_STEPS;
    sinceFresh = fresh ? 1 : sinceFresh + 1;
    if (fresh) hessian.fill(0);
    for (let j = 0; j < d; j++) {
      gradient[j] = w[j]!;
      if (fresh) hessian[j * D + j] = 1;
    }
    for (let i = 0; i < n; i++) {
      const p = sigmoid(flatDot(w, rows, i * D, d) + w[d]!);
      const residual = c * (p - y[i]!);
      const at = i * D;
      if (!fresh) {
        for (let a = 0; a < D; a++) gradient[a]! += residual * rows[at + a]!;
        continue;
      }
      const curvature = c * p * (1 - p);
      for (let a = 0; a < D; a++) {
        const xa = rows[at + a]!;
        gradient[a]! += residual * xa;
        if (curvature === 0) continue;
        const ca = curvature * xa;
        for (let b = 0, k = a * D; b <= a; b++, k++) hessian[k]! += ca * rows[at + b]!;
      }
    }
    const step = solve(
      Array.from({ length: D }, (_, a) => Array.from({ length: D }, (_, b) => (b <= a ? hessian[a * D + b]! : hessian[b * D + a]!))),
      gradient,
    );
    let scale = 1;
    let next = w.map((v, j) => v - step[j]!);
    let value = objective(next);
    while (value > current && scale > 1e-6) {
      scale /= 2;
      next = w.map((v, j) => v - scale * step[j]!);
      value = objective(next);
    }
    const moved = Math.max(...step.map((s) => Math.abs(s * scale)));
    for (let j = 0; j <= d; j++) w[j] = next[j]!;
    const improvement = current - value;
    current = value;
    if (moved < 1e-10 || improvement < 1e-12 * Math.max(1, Math.abs(current))) {
      iterations++;
      break;
    }
  }
  if (curvature) {
    curvature.hessian = hessian;
    curvature.rows = n;
  }
  return { weights: w.slice(0, d), intercept: w[d]!, iterations };
}

/** Steps taken with one Hessian from a warm start before it is computed afresh. */
const CHORD_STEPS = 8;

/** The Hessian a fit last used and the rows it was fitted on: read as a warm fit's first curvature, then replaced by that fit's. */
export interface LogisticCurvature {
  hessian: Float64Array;
  rows: number;
}

export function scoreRow(model: LogisticModel, row: readonly number[]): number {
  return dot(model.weights, row, model.weights.length) + model.intercept;
}

/** w·x over the first d entries of the flat row starting at `at` (the same sum, in the same order, as `dot`). */
function flatDot(w: readonly number[], rows: Float64Array, at: number, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += w[j]! * rows[at + j]!;
  return s;
}

function dot(w: readonly number[], x: readonly number[], d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += w[j]! * x[j]!;
  return s;
}

function sigmoid(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** log(1 + exp(z)) without overflow. */
function softplus(z: number): number {
  return z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z));
}

/** Solves A·x = b for a symmetric positive-definite A by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]!;
    if (Math.abs(p) < 1e-14) continue;
    for (let r = col + 1; r < n; r++) {
      const f = m[r]![col]! / p;
      if (f === 0) continue;
      for (let cc = col; cc <= n; cc++) m[r]![cc]! -= f * m[col]![cc]!;
    }
  }
  const out = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    const p = m[r]![r]!;
    if (Math.abs(p) < 1e-14) continue;
    let s = m[r]![n]!;
    for (let cc = r + 1; cc < n; cc++) s -= m[r]![cc]! * out[cc]!;
    out[r] = s / p;
  }
  return out;
}
