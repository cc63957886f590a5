/**
 * Lasso by working-set coordinate descent, solved to the optimum: the objective and α of
 * `lassoFitCoded` (lasso-fit.ts), α resolved from the residual at w = 0 whatever the start.
 *
 * Why not plain cyclic descent: with hundreds of models and tens of thousands of instances the
 * columns are highly correlated, and a full sweep over every column still moves the weights after
 * thousands of sweeps (evaluate's inner folds ran into their 2,000-sweep cap); each sweep reads
 * every column. Here a sweep runs over a small working set only, through its Gram matrix (|W|
 * operations per update instead of n), and the solution on the set is then taken exactly: once the
 * signs of the set's weights settle, the weights solve Gᵤᵤ w = cᵤ − nα·sign (the lasso's
 * optimality conditions on its support) by Cholesky, and are kept if they keep those signs and
 * leave every other column of the set inside the threshold. A pass over all columns then checks
 * the rest against the threshold on the exact residual; columns over it join the set (largest
 * first) and the set is solved again. The result is the lasso optimum to rounding, not an iterate
 * stopped by a cap, and it does not depend on the start (`init`), only the time taken does.
 */
import { centredProblem, codedProducts, lassoFitCoded, type CodedColumns, type LassoFit } from './lasso-fit.js';

/** Relative slack on the threshold for rounding in the products (a column this close to it is at it). */
const slack = 1e-9;
/** A zero weight whose column is within this (relative) of the threshold leaves the optimum's uniqueness unproven. */
const margin = 1e-6;

export function lassoWorkingSet(x: CodedColumns, y: Float64Array, alpha: number | { ratio: number }, tol = 1e-12, maxIter = 100000, init: Float64Array | null = null): LassoFit {
  const { n, p, codes, start: colStart } = x;
  const { xm, table, norms, ym, yc, alpha: a } = centredProblem(x, y, alpha);
  const thresh = n * a;
  const w = new Float64Array(p);
  // The working set: columns (their centred values), their products with y − ȳ and their Gram matrix.
  const set: number[] = [];
  const inSet = new Uint8Array(p);
  const dense: Float64Array[] = [];
  const c: number[] = [];
  let cap = 64;
  let gram = new Float64Array(cap * cap);
  const dot = (u: Float64Array, v: Float64Array): number => {
    let s = 0;
    for (let i = 0; i < n; i++) s += (u[i] as number) * (v[i] as number);
    return s;
  };
  const join = (j: number): void => {
    const col = new Float64Array(n);
    const o = j * n;
    const t0 = colStart[j] as number;
    for (let i = 0; i < n; i++) col[i] = table[t0 + (codes[o + i] as number)] as number;
    const k = set.length;
    if (k === cap) {
      const bigger = new Float64Array(4 * cap * cap);
      for (let u = 0; u < k; u++) bigger.set(gram.subarray(u * cap, u * cap + k), u * 2 * cap);
      cap *= 2;
      gram = bigger;
    }
    set.push(j);
    inSet[j] = 1;
    dense.push(col);
    c.push(dot(col, yc));
    for (let u = 0; u < k; u++) gram[u * cap + k] = gram[k * cap + u] = dot(dense[u] as Float64Array, col);
    gram[k * cap + k] = norms[j] as number;
  };
  if (init) for (let j = 0; j < p; j++) if ((init[j] as number) !== 0 && (norms[j] as number) > 0) (w[j] = init[j] as number), join(j);
  const r = new Float64Array(n);
  const residual = (): void => {
    r.set(yc);
    set.forEach((j, u) => {
      const wj = w[j] as number;
      if (wj === 0) return;
      const col = dense[u] as Float64Array;
      for (let i = 0; i < n; i++) r[i] = (r[i] as number) - wj * (col[i] as number);
    });
  };
  residual();
  let sweeps = 0;
  let exact = false;
  let complete = false;
  const grad = new Float64Array(p);
  const dots = new Float64Array(4);
  for (let round = 0; ; round++) {
    // Every column outside the set against the threshold, on the exact residual.
    const over: number[] = [];
    const batch: number[] = [];
    const flush = (): void => {
      codedProducts(x, table, r, batch, batch.length, dots);
      batch.forEach((j, b) => {
        grad[j] = dots[b] as number;
        if (Math.abs(grad[j] as number) > thresh * (1 + slack)) over.push(j);
      });
      batch.length = 0;
    };
    for (let j = 0; j < p; j++) {
      if (inSet[j] || (norms[j] as number) <= 0) continue;
      batch.push(j);
      if (batch.length === 4) flush();
    }
    flush();
    complete = !over.length;
    // Done when nothing is over the threshold after the set is solved (a start is not a solution).
    if ((complete && (round > 0 || !set.length)) || sweeps >= maxIter) break;
    // Largest first, as many as the set holds (at least 32): the set grows geometrically, and a
    // column that is over the threshold only because the set is not yet complete is seldom taken.
    over.sort((u, v) => Math.abs(grad[v] as number) - Math.abs(grad[u] as number) || u - v);
    for (const j of over.slice(0, Math.max(32, set.length))) join(j);
    const solved = solveOnSet(set, w, c, gram, cap, thresh, tol, maxIter - sweeps);
    sweeps += solved.sweeps;
    exact = solved.exact;
    residual();
  }
  let intercept = ym;
  for (let j = 0; j < p; j++) intercept -= (xm[j] as number) * (w[j] as number);
  // Unique (Tibshirani 2013, lemma 2): the columns at the threshold are exactly the support and
  // are linearly independent (the Cholesky of G_SS succeeded). Every zero weight's column must
  // then be clearly inside the threshold; one within `margin` of it is counted as at it.
  let unique = exact && complete;
  for (let j = 0; unique && j < p; j++) if ((w[j] as number) === 0 && !inSet[j] && (norms[j] as number) > 0 && Math.abs(grad[j] as number) >= thresh * (1 - margin)) unique = false;
  set.forEach((j, u) => {
    if (unique && (w[j] as number) === 0 && Math.abs(dot(dense[u] as Float64Array, r)) >= thresh * (1 - margin)) unique = false;
  });
  return { weights: w, intercept, alpha: a, iterations: sweeps, unique };
}

/**
 * The lasso on the set's columns alone: coordinate descent on q = c − G·w until the signs settle,
 * then the exact solution for those signs (see the file comment). Returns the sweeps taken and
 * whether the weights are that exact solution.
 */
function solveOnSet(set: number[], w: Float64Array, c: number[], gram: Float64Array, cap: number, thresh: number, tol: number, maxSweeps: number): { sweeps: number; exact: boolean } {
  const k = set.length;
  const q = Float64Array.from(c);
  const ws = Float64Array.from(set, (j) => w[j] as number);
  for (let u = 0; u < k; u++) {
    const wu = ws[u] as number;
    if (wu !== 0) for (let v = 0; v < k; v++) q[v] = (q[v] as number) - wu * (gram[u * cap + v] as number);
  }
  let stable = 0;
  let sweep = 0;
  let exact = false;
  // Sweeps without a sign change before the next exact solve is tried; doubled after each failure
  // (a failed solve costs a Cholesky of the support, and the signs keep changing as they settle).
  let patience = 3;
  for (; sweep < maxSweeps; ) {
    sweep++;
    let maxDelta = 0;
    let maxW = 0;
    let moved = false;
    for (let u = 0; u < k; u++) {
      const nu = gram[u * cap + u] as number;
      const old = ws[u] as number;
      const rho = (q[u] as number) + nu * old;
      const value = rho > thresh ? (rho - thresh) / nu : rho < -thresh ? (rho + thresh) / nu : 0;
      maxW = Math.max(maxW, Math.abs(value));
      if (value === old) continue;
      if (Math.sign(value) !== Math.sign(old)) moved = true;
      const d = value - old;
      const row = u * cap;
      for (let v = 0; v < k; v++) q[v] = (q[v] as number) - d * (gram[row + v] as number);
      ws[u] = value;
      maxDelta = Math.max(maxDelta, Math.abs(d));
    }
    stable = moved ? 0 : stable + 1;
    const settled = maxDelta <= tol * Math.max(1, maxW);
    if (settled || stable === patience) {
      const solution = solveSigns(set, ws, c, gram, cap, thresh);
      if (solution) {
        ws.set(solution);
        exact = true;
        break;
      }
      if (settled) break;
      patience *= 2;
    }
  }
  set.forEach((j, u) => (w[j] = ws[u] as number));
  return { sweeps: sweep, exact };
}

/**
 * The weights with the signs of `ws` that satisfy the optimality conditions exactly: on the support
 * S, G_SS·w_S = c_S − thresh·sign(w_S); null if the solution changes a sign, leaves a column outside
 * S over the threshold, or G_SS is not positive definite to working precision.
 */
function solveSigns(set: number[], ws: Float64Array, c: number[], gram: Float64Array, cap: number, thresh: number): Float64Array | null {
  const k = ws.length;
  const support: number[] = [];
  for (let u = 0; u < k; u++) if ((ws[u] as number) !== 0) support.push(u);
  // In column order: the solve then depends on the support and its signs only, not on the order
  // the columns joined the set, so a warm start gives the cold start's weights bit for bit.
  support.sort((u, v) => (set[u] as number) - (set[v] as number));
  const m = support.length;
  const out = new Float64Array(k);
  if (!m) return null;
  // Cholesky of G_SS (lower triangle in l).
  const l = new Float64Array(m * m);
  let maxDiag = 0;
  for (const u of support) maxDiag = Math.max(maxDiag, gram[u * cap + u] as number);
  for (let i = 0; i < m; i++) {
    const gi = (support[i] as number) * cap;
    for (let j = 0; j <= i; j++) {
      let s = gram[gi + (support[j] as number)] as number;
      for (let t = 0; t < j; t++) s -= (l[i * m + t] as number) * (l[j * m + t] as number);
      if (i === j) {
        if (!(s > 1e-10 * maxDiag)) return null;
        l[i * m + i] = Math.sqrt(s);
      } else l[i * m + j] = s / (l[j * m + j] as number);
    }
  }
  const z = Float64Array.from(support, (u) => (c[u] as number) - thresh * Math.sign(ws[u] as number));
  for (let i = 0; i < m; i++) {
    let s = z[i] as number;
    for (let t = 0; t < i; t++) s -= (l[i * m + t] as number) * (z[t] as number);
    z[i] = s / (l[i * m + i] as number);
  }
  for (let i = m - 1; i >= 0; i--) {
    let s = z[i] as number;
    for (let t = i + 1; t < m; t++) s -= (l[t * m + i] as number) * (z[t] as number);
    z[i] = s / (l[i * m + i] as number);
  }
  for (let i = 0; i < m; i++) {
    if ((z[i] as number) * Math.sign(ws[support[i] as number] as number) <= 0) return null;
    out[support[i] as number] = z[i] as number;
  }
  for (let u = 0; u < k; u++) {
    if (out[u] !== 0) continue;
    let s = c[u] as number;
    for (let i = 0; i < m; i++) s -= (gram[u * cap + (support[i] as number)] as number) * (z[i] as number);
    if (Math.abs(s) > thresh * (1 + slack)) return null;
  }
  return out;
}

/**
 * `lasso-all`'s fit. Where the optimum is unique, cyclic descent from w = 0 (`lassoFitCoded`, as
 * scikit-learn's) converges to it as well, and the working-set solve reaches it in a fraction of
 * the time. Where uniqueness is not shown (a few dozen training models: more columns at the
 * threshold than independent directions among them), the optimum cyclic descent ends at depends
 * on its path, so the fit is that descent from zero, with `tol` and `maxIter`.
 */
export function lassoAllFit(x: CodedColumns, y: Float64Array, alpha: number | { ratio: number }, tol: number, maxIter: number, init: Float64Array | null): LassoFit {
  const fit = lassoWorkingSet(x, y, alpha, 1e-12, 100000, init);
  return fit.unique ? fit : lassoFitCoded(x, y, alpha, tol, maxIter);
}
