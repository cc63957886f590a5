/**
 * The adversarial filter's numeric core (adversarial-choose.ts) on a worker thread, so that the
 * build generates and renders one kind on the first core while the filter of another runs on the
 * second. The worker runs the same `runFilterCore` on the same numbers (structured clones are
 * exact), so its choices and drops are the same bit for bit. Where worker threads cannot load
 * this code (TypeScript sources without tsx, as under a test runner), or with
 * APTPACE_FILTER_THREAD=0, the core runs in-thread, and so does every later run once the worker
 * fails. One worker per process, started on first use; it does not keep the process alive while idle.
 */
import { jobThread } from '../kernel/job-thread.js';
import type { CoreResult, CoreTask } from './adversarial-choose.js';
import { type CoreRunner, runInThread } from './adversarial-filter.js';

export interface FilterJob {
  tasks: CoreTask[];
}

const thread = jobThread<FilterJob, CoreResult[]>(import.meta.url, 'adversarial-worker', () => process.env.APTPACE_FILTER_THREAD === '0');

/** Runs the tasks' cores on the worker when there is one (in the order sent), in-thread otherwise or if the worker fails. */
export const runOffThread: CoreRunner = (tasks) => {
  const sent = tasks.length === 0 ? null : thread.post({ tasks });
  return sent ? sent.catch(() => runInThread(tasks)) : runInThread(tasks);
};
