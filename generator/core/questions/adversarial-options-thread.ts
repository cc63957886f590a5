/**
 * Half of each choosing round's drafts chosen on a worker thread (adversarial-options-worker.ts)
 * while the filter's thread chooses the other half: a round scores every candidate set of every
 * draft against its fold's trees, the costliest step of the filter, and the drafts are independent
 * once the round's trees are fitted. The worker runs the same `chooseShown` on exact copies of
 * the drafts and the trees' arrays, so the choices are the same bit for bit.
 *
 * The drafts go to the worker once per task, with its first round; a later round sends only that
 * round's trees, and the worker chooses on its copies, whose shown candidates are the ones it
 * chose last (the filter's thread sets the same on its own). `endChoosing` ends the worker once a
 * task's rounds are done, so its copies do not outlive them. Where worker threads cannot load this
 * code (TypeScript sources without tsx, as under a test runner), or with APTPACE_FILTER_THREAD=0,
 * `chooseOffThread` returns null and the caller chooses in-thread; a failed worker's drafts are
 * chosen in-thread.
 */
import { jobThread } from '../kernel/job-thread.js';
import { type CoreDraft, chooseShown } from './adversarial-options.js';
import type { TreesScorerParts } from './audit/learners.js';

export interface ChooseJob {
  /** The drafts this worker chooses from now on (a task's first round); absent: the ones it holds. */
  drafts?: CoreDraft[];
  /** The round's trees, by fold. */
  models: TreesScorerParts[];
}

const thread = jobThread<ChooseJob, number[][]>(import.meta.url, 'adversarial-options-worker', () => process.env.APTPACE_FILTER_THREAD === '0');

/**
 * Each of `drafts`' candidates to show, chosen on the worker; null when there is none (choose
 * in-thread then). `first`: the task's first round, which hands the worker copies of the drafts;
 * later rounds must pass the same drafts, chosen by the worker in every round since.
 */
export function chooseOffThread(drafts: CoreDraft[], models: TreesScorerParts[], first: boolean): Promise<number[][]> | null {
  const sent = thread.post(first ? { drafts, models } : { models });
  // A worker that holds other drafts (its first round's job never reached it) answers for those: choose here then.
  return sent?.then((shown) => (shown.length === drafts.length ? shown : chooseShown(drafts, models))).catch(() => chooseShown(drafts, models)) ?? null;
}

/** Ends the worker and frees its copies of the drafts (a later task starts a new one). */
export function endChoosing(): Promise<void> {
  return thread.close();
}
