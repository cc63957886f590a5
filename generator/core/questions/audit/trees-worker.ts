/**
 * Worker-thread entry for tree fits (trees-thread.ts): runs `fitBoostedFlat` on the rows it is
 * sent and posts the model back. The same function as in the asking thread, so the same trees bit for bit.
 */
import { parentPort } from 'node:worker_threads';
import { fitBoostedFlat } from './boosted-trees.js';
import type { TreesJob } from './trees-thread.js';

parentPort?.on('message', (job: TreesJob) => {
  try {
    parentPort!.postMessage({ id: job.id, model: fitBoostedFlat(job.x, job.width, job.y) });
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
  }
});
