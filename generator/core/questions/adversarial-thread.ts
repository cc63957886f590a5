/**
 * The adversarial filter's numeric core (adversarial-choose.ts) on a worker thread, so that the
 * build generates and renders one kind on the first core while the filter of another runs on the
 * second. The worker runs the same `runFilterCore` on the same numbers (structured clones are
 * exact), so its choices and drops are the same bit for bit. Where worker threads cannot load
 * this code (TypeScript sources without tsx, as under a test runner), or with
 * APTPACE_FILTER_THREAD=0, the core runs in-thread, and so does every later run once the worker
 * fails. One worker per process, started on first use; it does not keep the process alive while idle.
 * While no core is out, the worker also reads a share of a kind's draft features for the build's
 * thread (`featuresOffThread`), which reads the rest meanwhile.
 */
import { jobThread } from '../kernel/job-thread.js';
import type { CoreResult, CoreTask } from './adversarial-choose.js';
import type { CorePoster, FeatureRunner } from './adversarial-filter.js';
import type { FeatureInput } from './adversarial-inputs.js';
import type { AdversaryTable } from './audit/adversary-features.js';

export type FilterJob = { tasks: CoreTask[] } | { features: FeatureInput[] };

const thread = jobThread<FilterJob, CoreResult[] | AdversaryTable[]>(import.meta.url, 'adversarial-worker', () => process.env.APTPACE_FILTER_THREAD === '0');
/** Cores sent and not yet answered: features go to the worker only when there are none, or they would wait behind a core. */
let coresOut = 0;

/** Posts the tasks' cores to the worker (run in the order sent); null when there is none. Rejects if the worker fails: the caller then runs them itself. */
export const postCores: CorePoster = (tasks) => {
  // The drafts' feature and similarity buffers are handed over, not copied: the caller lets go of
  // its cores once they are posted, and should the worker fail it makes them again from the drafts.
  const transfer = tasks.flatMap((t) => t.drafts.flatMap((d) => [d.raw.buffer, d.similarity.buffer]));
  const sent = thread.post({ tasks }, transfer) as Promise<CoreResult[]> | null;
  if (!sent) return null;
  coresOut++;
  const answered = () => void coresOut--;
  sent.then(answered, answered);
  return sent;
};

/** Reads the inputs' features on the worker when it is there and has no core to run; null otherwise. */
export const featuresOffThread: FeatureRunner = (inputs) => (coresOut > 0 ? null : ((thread.post({ features: inputs }) as Promise<AdversaryTable[]> | null) ?? null));
