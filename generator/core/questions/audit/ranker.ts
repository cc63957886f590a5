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
  // The objective at v; writes each row's margin v·x + b into `margins`, which the next gradient
  // pass reads once v is the accepted point (the same sums, computed once).
  const objective = (v: readonly number[], margins: Float64Array) => {
    let loss = 0;
    for (let j = 0; j < d; j++) loss += 0.5 * v[j]! * v[j]!;
    for (let i = 0; i < n; i++) {
      const z = flatDot(v, rows, i * D, d) + v[d]!;
      margins[i] = z;
      loss += c * softplus(y[i] ? -z : z);
    }
    return loss;
  };
  let margins = new Float64Array(n);
  let trial = new Float64Array(n);
  let current = objective(w, margins);
  let iterations = 0;
  const hessian = new Float64Array(D * D);
  if (given) {
    // The data part of the Hessian grows with the rows; the penalty's identity does not.
    const scale = n / curvature.rows;
    for (let k = 0; k < D * D; k++) hessian[k] = scale * curvature.hessian[k]!;
    for (let j = 0; j < d; j++) hessian[j * D + j]! += 1 - scale;
  }
  let sinceFresh = given ? 0 : CHORD_STEPS;
  // The Hessian's elimination, kept while chord steps reuse the Hessian.
  let factored: Factored | null = null;
  for (; iterations < maxIterations; iterations++) {
    const gradient = new Float64Array(D);
    const fresh = !warm || sinceFresh >= CHORD_STEPS;
    sinceFresh = fresh ? 1 : sinceFresh + 1;
    if (fresh) hessian.fill(0);
    for (let j = 0; j < d; j++) {
      gradient[j] = w[j]!;
      if (fresh) hessian[j * D + j] = 1;
    }
    if (fresh) accumulateNewton(rows, D, y, c, margins, gradient, hessian);
    else addGradient(rows, D, Float64Array.from(margins, (z, i) => c * (sigmoid(z) - y[i]!)), gradient);
    if (fresh || factored === null) factored = factor(hessian, D);
    const step = solveFactored(factored, gradient);
    let scale = 1;
    let next = w.map((v, j) => v - step[j]!);
    let value = objective(next, trial);
    while (value > current && scale > 1e-6) {
      scale /= 2;
      next = w.map((v, j) => v - scale * step[j]!);
      value = objective(next, trial);
    }
    [margins, trial] = [trial, margins];
    let moved = 0;
    for (let j = 0; j < D; j++) moved = Math.max(moved, Math.abs(step[j]! * scale));
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

/**
 * Adds every row's gradient and lower-triangle Hessian terms: gradient[a] += C(p − y)·x_a and
 * hessian[a·D + b] += C·p(1 − p)·x_a·x_b (b ≤ a), rows in order. Eight rows are taken per pass
 * over the triangle, each entry still summing its rows one at a time in row order (left to right,
 * no fused multiply-add in JavaScript), so the sums are the same to the bit as row by row; the
 * triangle is read and written an eighth as often, which is what the per-row loop spent its time
 * on (D = 97 for the ranked learner: a 38 KB triangle per row). A row whose curvature is 0 adds
 * ±0 to every entry, which changes none.
 */
function accumulateNewton(rows: Float64Array, D: number, y: ArrayLike<number>, c: number, margins: Float64Array, gradient: Float64Array, hessian: Float64Array): void {
  const n = y.length;
  const residuals = new Float64Array(n);
  const curvatures = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = sigmoid(margins[i]!);
    residuals[i] = c * (p - y[i]!);
    curvatures[i] = c * p * (1 - p);
  }
  addGradient(rows, D, residuals, gradient);
  let i = 0;
  for (; i + 8 <= n; i += 8) {
    const at0 = i * D;
    const at1 = at0 + D;
    const at2 = at1 + D;
    const at3 = at2 + D;
    const at4 = at3 + D;
    const at5 = at4 + D;
    const at6 = at5 + D;
    const at7 = at6 + D;
    for (let a = 0; a < D; a++) {
      const ca0 = curvatures[i]! * rows[at0 + a]!;
      const ca1 = curvatures[i + 1]! * rows[at1 + a]!;
      const ca2 = curvatures[i + 2]! * rows[at2 + a]!;
      const ca3 = curvatures[i + 3]! * rows[at3 + a]!;
      const ca4 = curvatures[i + 4]! * rows[at4 + a]!;
      const ca5 = curvatures[i + 5]! * rows[at5 + a]!;
      const ca6 = curvatures[i + 6]! * rows[at6 + a]!;
      const ca7 = curvatures[i + 7]! * rows[at7 + a]!;
      for (let b = 0, k = a * D; b <= a; b++, k++) {
        hessian[k] = hessian[k]! + ca0 * rows[at0 + b]! + ca1 * rows[at1 + b]! + ca2 * rows[at2 + b]! + ca3 * rows[at3 + b]! + ca4 * rows[at4 + b]! + ca5 * rows[at5 + b]! + ca6 * rows[at6 + b]! + ca7 * rows[at7 + b]!;
      }
    }
  }
  for (; i < n; i++) {
    const at = i * D;
    const ci = curvatures[i]!;
    for (let a = 0; a < D; a++) {
      const ca = ci * rows[at + a]!;
      for (let b = 0, k = a * D; b <= a; b++, k++) hessian[k]! += ca * rows[at + b]!;
    }
  }
}

/** gradient[a] += residualᵢ · xᵢₐ, rows in order. */
function addGradient(rows: Float64Array, D: number, residuals: Float64Array, gradient: Float64Array): void {
  for (let i = 0; i < residuals.length; i++) {
    const at = i * D;
    const r = residuals[i]!;
    for (let a = 0; a < D; a++) gradient[a]! += r * rows[at + a]!;
  }
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

/**
 * Gaussian elimination with partial pivoting of the symmetric matrix whose lower triangle is
 * `lower` (row-major D × D), kept so that each chord step solves against it with one pass over
 * the right-hand side. `solveFactored` does to b exactly what eliminating the augmented matrix
 * [A | b] would: the same row swaps, the same multipliers in the same order, the same back
 * substitution, so the step is the same to the bit as a fresh elimination's.
 */
interface Factored {
  size: number;
  /** Upper triangle after elimination, row-major (rows in their final order). */
  upper: Float64Array;
  /** The pivot row chosen at each column. */
  pivots: Int32Array;
  /** Column col's multiplier for the row then at position r: multipliers[col · size + r]; 0 below a (near) zero pivot, where nothing is eliminated. */
  multipliers: Float64Array;
}

const NEAR_ZERO = 1e-14;

function factor(lower: Float64Array, size: number): Factored {
  const m = new Float64Array(size * size);
  for (let a = 0; a < size; a++) for (let b = 0; b < size; b++) m[a * size + b] = b <= a ? lower[a * size + b]! : lower[b * size + a]!;
  const pivots = new Int32Array(size);
  const multipliers = new Float64Array(size * size);
  for (let col = 0; col < size; col++) {
    let pivot = col;
    for (let r = col + 1; r < size; r++) if (Math.abs(m[r * size + col]!) > Math.abs(m[pivot * size + col]!)) pivot = r;
    pivots[col] = pivot;
    if (pivot !== col) {
      for (let cc = 0; cc < size; cc++) {
        const t = m[col * size + cc]!;
        m[col * size + cc] = m[pivot * size + cc]!;
        m[pivot * size + cc] = t;
      }
    }
    const p = m[col * size + col]!;
    if (Math.abs(p) < NEAR_ZERO) continue;
    for (let r = col + 1; r < size; r++) {
      const f = m[r * size + col]! / p;
      multipliers[col * size + r] = f;
      if (f === 0) continue;
      // Column col itself is left as it was: below the diagonal nothing reads it again.
      for (let cc = col + 1; cc < size; cc++) m[r * size + cc]! -= f * m[col * size + cc]!;
    }
  }
  return { size, upper: m, pivots, multipliers };
}

function solveFactored(f: Factored, b: Float64Array): number[] {
  const n = f.size;
  const v = Float64Array.from(b);
  for (let col = 0; col < n; col++) {
    const pivot = f.pivots[col]!;
    if (pivot !== col) {
      const t = v[col]!;
      v[col] = v[pivot]!;
      v[pivot] = t;
    }
    for (let r = col + 1; r < n; r++) {
      const mult = f.multipliers[col * n + r]!;
      if (mult === 0) continue;
      v[r]! -= mult * v[col]!;
    }
  }
  const out = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    const p = f.upper[r * n + r]!;
    if (Math.abs(p) < NEAR_ZERO) continue;
    let s = v[r]!;
    for (let cc = r + 1; cc < n; cc++) s -= f.upper[r * n + cc]! * out[cc]!;
    out[r] = s / p;
  }
  return out;
}
