/**
 * Worker-thread entry for the adversarial filter's core (adversarial-thread.ts): runs
 * `runFilterCore` on each task it is sent, or reads the features of the drafts it is sent
 * (`featuresOf`), and posts the results back. The same functions as in the main thread, so the
 * same numbers bit for bit.
 */
import { collectGarbage } from '../kernel/collect-garbage.js';
import { serveJobs } from '../kernel/job-thread.js';
import { type CoreResult, runFilterCore } from './adversarial-choose.js';
import { featuresOf } from './adversarial-inputs.js';
import type { FilterJob } from './adversarial-thread.js';
import type { AdversaryTable } from './audit/adversary-features.js';

// One job at a time, in the order sent: a job's fits wait for the tree worker, and the next job starts when it is done.
serveJobs<FilterJob, CoreResult[] | AdversaryTable[]>(async (job) => {
  if ('features' in job) {
    const tables = job.features.map(featuresOf);
    // Reading them rendered a bare prompt per draft, now garbage that would stay in this heap
    // through the filter's run, beside the build's own peak.
    collectGarbage();
    return tables;
  }
  const results: CoreResult[] = [];
  for (const task of job.tasks) results.push(await runFilterCore(task));
  return results;
});
