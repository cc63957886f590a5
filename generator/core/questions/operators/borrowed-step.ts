import { sameTask } from '../corpus.js';
import { planOf } from '../plans.js';
import type { StepCandidate, StepOperator } from './types.js';

/** Negative sampling: a real step of another trajectory of the same domain (same repository when possible). */
export const borrowedStep: StepOperator = {
  name: 'borrowed_step',
  description: 'a real step taken from another trajectory (negative sampling)',
  propose({ rng, trajectory, corpus }) {
    const out: StepCandidate[] = [];
    const pools = [corpus.stepsByRepo(trajectory), corpus.stepsByDomain(trajectory.domain)];
    for (const pool of pools) {
      for (let attempt = 0; attempt < 6 && out.length < 2 && pool.length > 0; attempt++) {
        const ref = pool[rng.int(pool.length)]!;
        // Another run on the same task may have taken an equally valid step here.
        if (sameTask(ref.trajectory, trajectory)) continue;
        const step = ref.trajectory.steps[ref.step];
        if (!step || step.action.kind === 'finish') continue;
        out.push({ plan: planOf(step), planGiven: Boolean(step.plan), action: step.action });
      }
      if (out.length >= 2) break;
    }
    return out;
  },
};
