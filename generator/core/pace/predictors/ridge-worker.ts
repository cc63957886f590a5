/**
 * Worker-thread entry for kernel-ridge fits (`ridge-thread.ts`): runs `fitKernelRidge` on the Gram
 * matrix and training rows it is sent and posts the fold back. The same function as in the main
 * thread, so the same fit bit for bit.
 */
import { serveJobs } from '../../kernel/job-thread.js';
import { fitKernelRidge, type RidgeFold } from '../numerics/kernel-ridge.js';
import type { RidgeJob } from './ridge-thread.js';

serveJobs<RidgeJob, RidgeFold>(
  (job) => fitKernelRidge(job.gram, job.nAll, job.train, job.y, undefined, job.features),
  (fold) => [fold.values.buffer as ArrayBuffer, fold.vectors.buffer as ArrayBuffer],
);
