/**
 * Worker-thread entry for the adversarial filter's core (adversarial-thread.ts): runs
 * `runFilterCore` on each task it is sent and posts the results back. The same function as in
 * the main thread, so the same choices bit for bit.
 */
import { serveJobs } from '../kernel/job-thread.js';
import { type CoreResult, runFilterCore } from './adversarial-choose.js';
import type { FilterJob } from './adversarial-thread.js';

// One job at a time, in the order sent: a job's fits wait for the tree worker, and the next job starts when it is done.
serveJobs<FilterJob, CoreResult[]>(async (job) => {
  const results: CoreResult[] = [];
  for (const task of job.tasks) results.push(await runFilterCore(task));
  return results;
});
