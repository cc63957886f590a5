/**
 * Kernel-ridge fits of the ridge baselines (`ridge-all`, `benchmark-means`) on a worker thread.
 * With per-row coverage every inner fold of `evaluate` fits both, an eigendecomposition of the
 * fold's n × n kernel each (22 per outer fold at 500 models), while the fold's PACE fits keep the
 * main thread busy: started as soon as the fold's basis is ready, they run beside them. The worker
 * runs the same `fitKernelRidge`, so the fit is the same bit for bit; in-thread where worker
 * threads cannot load the code (as under a test runner), with `APTPACE_RIDGE_THREAD=0`, or once
 * the worker fails.
 */
import { jobThread } from '../../kernel/job-thread.js';
import { fitKernelRidge, type RidgeFeatures, type RidgeFold } from '../numerics/kernel-ridge.js';

export interface RidgeJob {
  gram: Float64Array;
  nAll: number;
  train: Int32Array;
  y: Float64Array;
  /** The Gram matrix's features when it has few (kernel-ridge.ts, RidgeFeatures). */
  features?: RidgeFeatures;
}

const thread = jobThread<RidgeJob, RidgeFold>(import.meta.url, 'ridge-worker', () => process.env.APTPACE_RIDGE_THREAD === '0');

/** `fitKernelRidge(gram, nAll, train, y, undefined, features)` (penalty by leave-one-out), off the main thread where it can be. */
export function ridgeOffThread(gram: Float64Array, nAll: number, train: Int32Array, y: Float64Array, features?: RidgeFeatures): Promise<RidgeFold> {
  const sent = thread.post({ gram, nAll, train: Int32Array.from(train), y: Float64Array.from(y), ...(features ? { features } : {}) });
  if (!sent) return Promise.resolve(fitKernelRidge(gram, nAll, train, y, undefined, features));
  return sent.catch(() => fitKernelRidge(gram, nAll, train, y, undefined, features));
}
