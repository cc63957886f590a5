/**
 * Lasso fits on a worker thread, so that `evaluate`'s lasso on every instance (a fifth to half of
 * a K-fold fold at hundreds of models) runs on the second core while the fold's other candidates
 * run on the first. The worker runs the same `lassoAllFit` (lasso-active.ts), so the fit is the same bit for bit.
 * Where worker threads cannot load this code (TypeScript sources without tsx, as under a test
 * runner) the fit runs in-thread, and so does every later fit once the worker fails (e.g. its
 * entry cannot be loaded). One worker per process, started on first use; it does not keep the
 * process alive while idle.
 */
import { jobThread } from '../../kernel/job-thread.js';
import type { CodedColumns, LassoFit } from './lasso-fit.js';
import { lassoAllFit } from './lasso-active.js';

export interface LassoJob {
  columns: CodedColumns;
  y: Float64Array;
  alpha: number | { ratio: number };
  tol: number;
  maxIter: number;
  /** Starting weights (another fold's fit on the same columns), or null for w = 0. */
  init: Float64Array | null;
}

const thread = jobThread<LassoJob, LassoFit>(import.meta.url, 'lasso-worker', () => process.env.APTPACE_LASSO_THREAD === '0');

/**
 * `lassoAllFit` (lasso-active.ts) on `code()`'s columns, off the main thread when a worker is available (the
 * codes' buffer is handed over to it), in-thread otherwise or if the worker fails.
 */
export function lassoOffThread(code: () => CodedColumns, y: Float64Array, alpha: number | { ratio: number }, tol: number, maxIter: number, init: Float64Array | null = null): Promise<LassoFit> {
  const columns = code();
  const sent = thread.post({ columns, y: Float64Array.from(y), alpha, tol, maxIter, init: init && Float64Array.from(init) }, [columns.codes.buffer as ArrayBuffer]);
  if (!sent) return Promise.resolve(lassoAllFit(columns, y, alpha, tol, maxIter, init));
  // A worker that fails leaves the fit to the main thread (coded again: the codes were handed over).
  return sent.catch(() => lassoAllFit(code(), y, alpha, tol, maxIter, init));
}
