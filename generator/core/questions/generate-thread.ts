/**
 * Drafting of the kinds that cost most to generate (`OFF_THREAD_KINDS`), split between the build's
 * thread and a worker: the worker drafts every other trajectory of the kind while the build's
 * thread drafts the rest, so the second core works while the first generates instead of waiting
 * for the adversarial filter's turn. Drafting is a pure function of the trajectory, the corpus
 * and a random stream forked by (kind, trajectory), so the worker's drafts are the same bit for
 * bit (structured clones are exact); the caller merges them in trajectory order, as if one thread
 * had drafted them all. The worker holds its own copy of the corpus while a build drafts there;
 * `releaseGenerateThread` ends it, so that copy is not held through the rest of the build.
 * Where worker threads cannot load this code, or with APTPACE_GENERATE_THREAD=0, everything is
 * drafted in the build's thread.
 */
import { jobThread } from '../kernel/job-thread.js';
import type { Trajectory } from '../trajectories/types.js';
import type { QuestionKind } from './types.js';
import type { KindResult } from './types/module.js';
import type { DraftContext } from './drafting.js';
import { historyBefore } from './views.js';

/**
 * Kinds drafted on two threads: the step-choice kinds (step-mcq.ts `nextStepDrafts`), by far the
 * costliest to draft (proposing and balancing distractors per anchor). Their drafts' `history` is
 * always `historyBefore(t, step, observationChars)`: it is left out of what the worker sends back
 * (most of a draft's size) and rebuilt here from the build's own trajectory.
 */
export const OFF_THREAD_KINDS: ReadonlySet<QuestionKind> = new Set(['plan_mcq', 'next_action_mcq']);

export type DraftSettings = DraftContext & { seed: string | number };

export type GenerateJob =
  | { op: 'corpus'; build: number; trajectories: readonly Trajectory[] }
  | { op: 'generate'; build: number; kind: QuestionKind; indices: number[]; settings: DraftSettings }
  | { op: 'release'; build: number };

const thread = jobThread<GenerateJob, KindResult[] | true>(import.meta.url, 'generate-worker', () => process.env.APTPACE_GENERATE_THREAD === '0');
let nextBuild = 0;
let open = 0;

/** One build's use of the worker: the corpus is sent once, on the first kind drafted there. */
export class DraftSplit {
  private readonly build = nextBuild++;
  private sent: Promise<unknown> | null | undefined;

  constructor(private readonly usable: readonly Trajectory[]) {}

  /**
   * Starts drafting `indices` (into the build's sorted trajectories) on the worker; resolves to
   * their results in that order, or null when there is no worker (the caller drafts them itself).
   */
  draft(kind: QuestionKind, indices: number[], settings: DraftSettings): Promise<KindResult[] | null> | null {
    if (this.sent === undefined) {
      this.sent = thread.post({ op: 'corpus', build: this.build, trajectories: this.usable });
      if (this.sent) {
        open++;
        this.sent.catch(() => undefined);
      }
    }
    if (!this.sent) return null;
    const job = thread.post({ op: 'generate', build: this.build, kind, indices, settings });
    if (!job) return null;
    return job.then(
      (results) => (results as KindResult[]).map((r, j) => restore(r, this.usable[indices[j]!]!, settings.observationChars)),
      () => null,
    );
  }

  /**
   * Lets the worker drop this build's corpus; the worker itself ends when no build uses it.
   * Resolves when that is done, so that a caller about to hold much can wait for the memory first.
   */
  release(): Promise<void> {
    if (!this.sent) return Promise.resolve();
    this.sent = null;
    const done = thread.post({ op: 'release', build: this.build });
    const last = () => (--open === 0 ? thread.close() : undefined);
    return done ? done.then(last, last) : Promise.resolve(last());
  }
}

function restore(result: KindResult, t: Trajectory, observationChars: number): KindResult {
  for (const d of result.drafts) d.history = historyBefore(t, d.step!, observationChars);
  return result;
}
