import type { Action } from '../../trajectories/types.js';
import { candidateOf, planOf } from '../plans.js';
import type { StepOperator } from './types.js';

const FALLBACK: Record<string, Action | undefined> = {
  swe: { kind: 'finish', tool: 'submit', args: {}, text: 'submit' },
  deep_research: { kind: 'finish', tool: 'task_complete', args: {}, text: 'task_complete' },
};

/** Finishing before the work is done: the trajectory's own finish action, at the wrong time. */
export const prematureSubmit: StepOperator = {
  name: 'premature_submit',
  description: 'submitting / completing the task before the remaining steps are done',
  propose({ trajectory, position, gold }) {
    if (gold.action.kind === 'finish') return [];
    const finish = [...trajectory.steps].reverse().find((s) => s.action.kind === 'finish');
    const reason = 'finishes before the task is done: the answer is not established yet';
    if (finish) return [{ ...candidateOf(finish), reason }];
    const fallback = FALLBACK[trajectory.domain];
    if (!fallback || position >= trajectory.steps.length - 1) return [];
    return [{ plan: planOf({ plan: null, action: fallback }), planGiven: false, action: fallback, reason }];
  },
};
