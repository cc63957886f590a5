/**
 * Worker-thread entry for lasso fits (`lasso-thread.ts`): runs `lassoFitCoded` on the coded
 * columns it is sent and posts the fit back. The same function as in the main thread, so the
 * same weights bit for bit.
 */
import { parentPort } from 'node:worker_threads';
import { lassoFitCoded } from './lasso-fit.js';
import type { LassoJob } from './lasso-thread.js';

parentPort?.on('message', (job: LassoJob) => {
  try {
    const fit = lassoFitCoded(job.columns, job.y, job.alpha, job.tol, job.maxIter);
    parentPort!.postMessage({ id: job.id, fit }, [fit.weights.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
});
