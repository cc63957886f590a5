/**
 * Lasso on every selectable instance by cyclic coordinate descent, with sklearn's objective
 * (1/2n)‖y − b − Xw‖² + α‖w‖₁. α = 0.1·α_max of the training fold (α_max = the smallest α
 * giving w = 0), a fixed point on the regularisation path so no held-out information enters.
 */
import type { Baseline } from './baseline-types.js';
import { viewCols } from '../numerics/kernels.js';
import { perFold } from './fold-memo.js';

export interface LassoFit {
  weights: Float64Array;
  intercept: number;
  alpha: number;
  iterations: number;
}

/**
 * `x` is column-major (p × n): x[j*n + i]. Coordinates that provably stay at zero are skipped
 * (see the loop), which leaves every iterate unchanged.
 */
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
  // Certified skips (exact: the iterates are the ones a full sweep gives). A coordinate at zero
  // whose last computed |ρ| was below the threshold stays at zero while the residual has moved
  // too little to lift it over: |ρ_now| ≤ |ρ_then| + ‖x_j‖·‖r_now − r_then‖ + rounding of both dot
  // products (γ·‖x_j‖·‖r‖). ‖r_now − r_then‖ is bounded through the residual saved at the start of
  // each sweep: the distance between two saved residuals is computed, and within a sweep the
  // path travelled since its start (Σ |d|·‖x_k‖ over the updates, with their rounding) bounds the
  // rest. A skipped coordinate is one whose update would have been 0 → 0 and changed nothing.
  const eps = Number.EPSILON;
  const colNorm = Float64Array.from(norms, (v) => Math.sqrt(v) * (1 + 4 * n * eps));
  const gamma = 2 * 1.01 * n * eps;
  const seenRho = new Float64Array(p);
  const seenSweep = new Int32Array(p).fill(-1);
  const seenOffset = new Float64Array(p);
  const saved: Float64Array[] = [];
  let iter = 0;
  for (; iter < maxIter; iter++) {
    let maxDelta = 0;
    let maxW = 0;
    const start = Float64Array.from(r);
    saved.push(start);
    let rStart = 0;
    for (const v of r) rStart += v * v;
    rStart = Math.sqrt(rStart) * (1 + 4 * n * eps);
    const distance = new Map<number, number>();
    const distanceTo = (s: number): number => {
      let d = distance.get(s);
      if (d === undefined) {
        const a = saved[s] as Float64Array;
        let sum = 0;
        let size = 0;
        for (let i = 0; i < n; i++) {
          sum += ((start[i] as number) - (a[i] as number)) ** 2;
          size += (a[i] as number) ** 2;
        }
        d = Math.sqrt(sum) * (1 + 4 * n * eps) + 4 * eps * (rStart + Math.sqrt(size) * (1 + 4 * n * eps));
        distance.set(s, d);
      }
      return d;
    };
    let path = 0;
    for (let j = 0; j < p; j++) {
      const nj = norms[j] as number;
      if (nj <= 0) continue;
      const old = w[j] as number;
      if (old === 0 && (seenSweep[j] as number) >= 0) {
        const s = seenSweep[j] as number;
        // ‖r_now − r_then‖: within this sweep, the path since then; across sweeps, the path since this
        // sweep's start + the distance between the two saved residuals + the path within that sweep.
        const moved = s === iter ? path - (seenOffset[j] as number) : path + distanceTo(s) + (seenOffset[j] as number);
        const bound = (seenRho[j] as number) + (colNorm[j] as number) * (moved + gamma * (rStart + path));
        if (bound < thresh * (1 - 1e-12)) continue;
      }
      let rho = 0;
      for (let i = 0; i < n; i++) rho += (xc[j * n + i] as number) * (r[i] as number);
      rho += nj * old;
      const next = rho > thresh ? (rho - thresh) / nj : rho < -thresh ? (rho + thresh) / nj : 0;
      if (old === 0 && next === 0) {
        seenRho[j] = Math.abs(rho);
        seenSweep[j] = iter;
        seenOffset[j] = path;
      } else seenSweep[j] = -1;
      if (next !== old) {
        const d = next - old;
        for (let i = 0; i < n; i++) r[i] = (r[i] as number) - d * (xc[j * n + i] as number);
        w[j] = next;
        maxDelta = Math.max(maxDelta, Math.abs(d));
        path += Math.abs(d) * (colNorm[j] as number) * (1 + 3 * eps) + 2 * eps * (rStart + path + Math.abs(d) * (colNorm[j] as number));
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
    const p = viewCols(view);
    const fit = perFold(ctx.basis, 'lasso-all', () => {
      const rows = ctx.basis.trainRows;
      const n = rows.length;
      const x = new Float64Array(p * n);
      for (let i = 0; i < n; i++) {
        const base = (view.rows[rows[i] as number] as number) * view.stride;
        for (let j = 0; j < p; j++) x[j * n + i] = view.data[base + (view.cols ? (view.cols[j] as number) : j)] as number;
      }
      return lassoFit(x, n, p, ctx.basis.yTrain, { ratio: 0.1 }, 1e-8, 2000);
    });
    const base = (view.rows[ctx.testRow] as number) * view.stride;
    let pred = fit.intercept;
    for (let j = 0; j < p; j++) {
      const wj = fit.weights[j] as number;
      if (wj !== 0) pred += wj * (view.data[base + (view.cols ? (view.cols[j] as number) : j)] as number);
    }
    return pred;
  },
};
