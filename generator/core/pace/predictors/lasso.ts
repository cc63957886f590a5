/**
 * Lasso on every selectable instance by cyclic coordinate descent, with sklearn's objective
 * (1/2n)‖y − b − Xw‖² + α‖w‖₁. α = 0.1·α_max of the training fold (α_max = the smallest α
 * giving w = 0), a fixed point on the regularisation path so no held-out information enters.
 */
import type { Baseline } from './baseline-types.js';
import { viewCols } from '../numerics/kernels.js';

export interface LassoFit {
  weights: Float64Array;
  intercept: number;
  alpha: number;
  iterations: number;
}

/** `x` is column-major (p × n): x[j*n + i]. */
export function lassoFit(x: Float64Array, n: number, p: number, y: Float64Array, alpha: number | { ratio: number }, tol = 1e-10, maxIter = 10000): LassoFit {
  const xm = new Float64Array(p);
  const norms = new Float64Array(p);
  let ym = 0;
  for (const v of y) ym += v;
  ym /= n;
  const xc = new Float64Array(p * n);
  for (let j = 0; j < p; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[j * n + i] as number;
    xm[j] = s / n;
    let nn = 0;
    for (let i = 0; i < n; i++) {
      const v = (x[j * n + i] as number) - s / n;
      xc[j * n + i] = v;
      nn += v * v;
    }
    norms[j] = nn;
  }
  const r = Float64Array.from(y, (v) => v - ym);
  let a: number;
  if (typeof alpha === 'number') a = alpha;
  else {
    let maxCorr = 0;
    for (let j = 0; j < p; j++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += (xc[j * n + i] as number) * (r[i] as number);
      maxCorr = Math.max(maxCorr, Math.abs(s) / n);
    }
    a = alpha.ratio * maxCorr;
  }
  const w = new Float64Array(p);
  const thresh = n * a;
  let iter = 0;
  for (; iter < maxIter; iter++) {
    let maxDelta = 0;
    let maxW = 0;
    for (let j = 0; j < p; j++) {
      const nj = norms[j] as number;
      if (nj <= 0) continue;
      const old = w[j] as number;
      let rho = 0;
      for (let i = 0; i < n; i++) rho += (xc[j * n + i] as number) * (r[i] as number);
      rho += nj * old;
      const next = rho > thresh ? (rho - thresh) / nj : rho < -thresh ? (rho + thresh) / nj : 0;
      if (next !== old) {
        const d = next - old;
        for (let i = 0; i < n; i++) r[i] = (r[i] as number) - d * (xc[j * n + i] as number);
        w[j] = next;
        maxDelta = Math.max(maxDelta, Math.abs(d));
      }
      maxW = Math.max(maxW, Math.abs(next));
    }
    if (maxDelta <= tol * Math.max(1, maxW)) break;
  }
  let intercept = ym;
  for (let j = 0; j < p; j++) intercept -= (xm[j] as number) * (w[j] as number);
  return { weights: w, intercept, alpha: a, iterations: iter };
}

export const lassoBaseline: Baseline = {
  name: 'lasso-all',
  notShippedBecause: 'needs every source instance of the checkpoint, and its weights can be negative (not monotone)',
  title: 'lasso on all instances (α = 0.1·α_max)',
  predict: (ctx) => {
    const { view } = ctx.basis.data;
    const rows = ctx.basis.trainRows;
    const n = rows.length;
    const p = viewCols(view);
    const x = new Float64Array(p * n);
    for (let i = 0; i < n; i++) {
      const base = (view.rows[rows[i] as number] as number) * view.stride;
      for (let j = 0; j < p; j++) x[j * n + i] = view.data[base + (view.cols ? (view.cols[j] as number) : j)] as number;
    }
    const fit = lassoFit(x, n, p, ctx.basis.yTrain, { ratio: 0.1 }, 1e-8, 2000);
    const base = (view.rows[ctx.testRow] as number) * view.stride;
    let pred = fit.intercept;
    for (let j = 0; j < p; j++) {
      const wj = fit.weights[j] as number;
      if (wj !== 0) pred += wj * (view.data[base + (view.cols ? (view.cols[j] as number) : j)] as number);
    }
    return pred;
  },
};
