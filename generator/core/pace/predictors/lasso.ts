/**
 * Lasso on every selectable instance (the `lasso-all` baseline), sklearn's objective with
 * α = 0.1·α_max of the training fold (α_max = the smallest α giving w = 0), a fixed point on the
 * regularisation path so no held-out information enters. The fit (lasso-fit.ts) runs once per
 * fold, on a worker thread where one is available (lasso-thread.ts).
 */
import type { Baseline } from './baseline-types.js';
import type { FoldBasis } from '../pipeline.js';
import { viewCols } from '../numerics/kernels.js';
import { perFold } from './fold-memo.js';
import { codeColumns, type LassoFit } from './lasso-fit.js';
import { lassoOffThread } from './lasso-thread.js';

export { codeColumnMajor, codeColumns, lassoFit, lassoFitCoded, type CodedColumns, type LassoFit } from './lasso-fit.js';

/**
 * Starts the fold's `lasso-all` fit (once per fold basis) and returns it: `evaluate` calls this
 * as soon as a fold's basis is ready, so the fit runs on the worker while the fold's other
 * candidates run here.
 */
export function startLassoAll(basis: FoldBasis): Promise<LassoFit> {
  return perFold(basis, 'lasso-all', () => {
    const { view } = basis.data;
    const p = viewCols(view);
    const rows = basis.trainRows;
    const n = rows.length;
    const bases = Int32Array.from(rows, (r) => (view.rows[r] as number) * view.stride);
    const code = () =>
      codeColumns(n, p, (j, out) => {
        const c = view.cols ? (view.cols[j] as number) : j;
        for (let i = 0; i < n; i++) out[i] = view.data[(bases[i] as number) + c] as number;
      });
    return lassoOffThread(code, basis.yTrain, { ratio: 0.1 }, 1e-8, 2000);
  });
}

export const lassoBaseline: Baseline = {
  name: 'lasso-all',
  notShippedBecause: 'needs every source instance of the checkpoint, and its weights can be negative (not monotone)',
  title: 'lasso on all instances (α = 0.1·α_max)',
  predict: async (ctx) => {
    const { view } = ctx.basis.data;
    const p = viewCols(view);
    const fit = await startLassoAll(ctx.basis);
    const base = (view.rows[ctx.testRow] as number) * view.stride;
    let pred = fit.intercept;
    for (let j = 0; j < p; j++) {
      const wj = fit.weights[j] as number;
      if (wj !== 0) pred += wj * (view.data[base + (view.cols ? (view.cols[j] as number) : j)] as number);
    }
    return pred;
  },
};
