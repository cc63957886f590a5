/**
 * Tree fits (boosted-trees.ts) on a worker thread, so that the adversarial filter fits some of a
 * cross-fit's folds on a second core while it fits the others (and the logistic learners) on its
 * own. The worker runs the same `fitBoostedFlat` on the same rows, so the model is the same bit for
 * bit. Where worker threads cannot load this code (TypeScript sources without tsx, as under a test
 * runner), or with APTPACE_FILTER_THREAD=0, `fitTreesOffThread` returns null and the caller fits
 * in-thread; a failed worker's fits are made in-thread. One worker per thread that asks, started
 * on first use; it does not keep the process alive while idle.
 */
import { jobThread } from '../../kernel/job-thread.js';
import { type BoostedModel, fitBoostedFlat } from './boosted-trees.js';

export interface TreesJob {
  x: Float64Array;
  width: number;
  y: Uint8Array;
}

const thread = jobThread<TreesJob, BoostedModel>(import.meta.url, 'trees-worker', () => process.env.APTPACE_FILTER_THREAD === '0');

/** `fitBoostedFlat(x, width, y)` on the worker; null when there is none (fit in-thread then). The rows are copied, not handed over. */
export function fitTreesOffThread(x: Float64Array, width: number, y: Uint8Array): Promise<BoostedModel> | null {
  return thread.post({ x, width, y })?.catch(() => fitBoostedFlat(x, width, y)) ?? null;
}
