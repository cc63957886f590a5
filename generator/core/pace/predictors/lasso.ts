/**
 * Lasso on every selectable instance (the `lasso-all` baseline), sklearn's objective with
 * α = 0.1·α_max of the training fold (α_max = the smallest α giving w = 0), a fixed point on the
 * regularisation path so no held-out information enters. The fit (`lassoAllFit`, lasso-active.ts:
 * the optimum by working-set descent where it is unique, cyclic descent from zero otherwise) runs
 * once per fold, on a worker thread where one is available (lasso-thread.ts).
 */
import type { Baseline } from './baseline-types.js';
import type { FoldBasis } from '../pipeline.js';
import { viewCols, type MatrixView } from '../numerics/kernels.js';
import { perFold } from './fold-memo.js';
import { codeColumns, pickRows, type CodedColumns, type LassoFit } from './lasso-fit.js';
import { lassoOffThread } from './lasso-thread.js';

export { codeColumnMajor, codeColumns, lassoFit, lassoFitCoded, type CodedColumns, type LassoFit } from './lasso-fit.js';

/**
 * The view's columns coded over all of its rows, once per view: reading a column of the row-major
 * matrix is a strided walk over all of it, and every fold (outer and inner, 110 of them at 500
 * models) would repeat it; a fold's coding picks its rows from this one instead (`pickRows`).
 */
const pools = new WeakMap<MatrixView, CodedColumns>();

function codedPool(view: MatrixView): CodedColumns {
  let pool = pools.get(view);
  if (!pool) {
    const n = view.rows.length;
    const bases = Int32Array.from(view.rows, (r) => r * view.stride);
    pool = codeColumns(n, viewCols(view), (j, out) => {
      const c = view.cols ? (view.cols[j] as number) : j;
      for (let i = 0; i < n; i++) out[i] = view.data[(bases[i] as number) + c] as number;
    });
    pools.set(view, pool);
  }
  return pool;
}

/**
 * Starts the fold's `lasso-all` fit (once per fold basis) and returns it: `evaluate` calls this
 * as soon as a fold's basis is ready, so the fit runs on the worker while the fold's other
 * candidates run here. `init`, another fold's fit on the same columns (an inner fold starts from
 * its outer fold's, whose training models it shares but a tenth), only shortens the solve: a
 * unique optimum is the same from any start, and cyclic descent ignores it.
 */
export function startLassoAll(basis: FoldBasis, init: Promise<LassoFit | null> | null = null): Promise<LassoFit> {
  return perFold(basis, 'lasso-all', () => {
    const { view } = basis.data;
    const p = viewCols(view);
    const code = () => pickRows(codedPool(view), basis.trainRows);
    const solve = (start: LassoFit | null) => lassoOffThread(code, basis.yTrain, { ratio: 0.1 }, 1e-8, 2000, start && start.weights.length === p ? start.weights : null);
    return init ? init.catch(() => null).then(solve) : solve(null);
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
