/**
 * Worker-thread entry for the adversarial filter's core (adversarial-thread.ts): runs
 * `runFilterCore` on each task it is sent and posts the results back. The same function as in
 * the main thread, so the same choices bit for bit.
 */
import { parentPort } from 'node:worker_threads';
import { runFilterCore } from './adversarial-choose.js';
import type { FilterJob } from './adversarial-thread.js';

parentPort?.on('message', (job: FilterJob) => {
  try {
    parentPort!.postMessage({ id: job.id, results: job.tasks.map(runFilterCore) });
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
});
