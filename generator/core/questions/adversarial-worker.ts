/**
 * Worker-thread entry for the adversarial filter's core (adversarial-thread.ts): runs
 * `runFilterCore` on each task it is sent and posts the results back. The same function as in
 * the main thread, so the same choices bit for bit.
 */
import { parentPort } from 'node:worker_threads';
import { runFilterCore } from './adversarial-choose.js';
import type { FilterJob } from './adversarial-thread.js';

// One job at a time, in the order sent: a job's fits wait for the tree worker, and the next job starts when it is done.
let queue: Promise<void> = Promise.resolve();

parentPort?.on('message', (job: FilterJob) => {
  queue = queue.then(async () => {
    try {
      const results = [];
      for (const task of job.tasks) results.push(await runFilterCore(task));
      parentPort!.postMessage({ id: job.id, results });
    } catch (e) {
      parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
    }
  });
});
