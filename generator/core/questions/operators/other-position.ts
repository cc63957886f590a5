import { candidateOf } from '../plans.js';
import type { StepCandidate, StepOperator } from './types.js';

/**
 * A step of the same trajectory at another position: repeating an earlier step or jumping
 * ahead. The immediately following step is never used (it may be an equally valid next step).
 */
export const otherPosition: StepOperator = {
  name: 'other_position',
  description: 'a step of the same trajectory from another position (a repeat or a jump ahead)',
  propose({ rng, trajectory, position }) {
    const steps = trajectory.steps;
    const eligible: number[] = [];
    for (let j = 0; j < steps.length; j++) {
      if (j === position || j === position + 1) continue;
      if (steps[j]!.action.kind === 'finish') continue;
      eligible.push(j);
    }
    const out: StepCandidate[] = [];
    // Earlier steps are shown in the prompt (the copy filter drops them); later ones are kept
    // only when they name nothing first seen in the future (the leak filter decides).
    for (const j of rng.shuffle(eligible.filter((j) => j > position)).slice(0, 5)) {
      out.push({ ...candidateOf(steps[j]!), reason: `step ${j + 1} of this trajectory: it depends on steps not taken yet` });
    }
    return out;
  },
};
