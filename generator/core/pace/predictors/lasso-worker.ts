/**
 * Worker-thread entry for lasso fits (`lasso-thread.ts`): runs `lassoAllFit` (lasso-active.ts) on the coded
 * columns it is sent and posts the fit back. The same function as in the main thread, so the
 * same weights bit for bit.
 */
import { serveJobs } from '../../kernel/job-thread.js';
import type { LassoFit } from './lasso-fit.js';
import { lassoAllFit } from './lasso-active.js';
import type { LassoJob } from './lasso-thread.js';

serveJobs<LassoJob, LassoFit>(
  (job) => lassoAllFit(job.columns, job.y, job.alpha, job.tol, job.maxIter, job.init),
  (fit) => [fit.weights.buffer as ArrayBuffer],
);
