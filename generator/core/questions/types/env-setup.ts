import type { Trajectory } from '../../trajectories/types.js';
import { planOf } from '../plans.js';

/**
 * The execution plan an env-setup question shows: the source's own plan when it has one
 * (`extra.execution_plan`, as APTBench's rows do), else the step plans in APTBench's
 * `step1: …; step2: …` form.
 */
export function executionPlan(t: Trajectory): string {
  const given = t.extra?.execution_plan;
  if (typeof given === 'string' && given.trim()) return given.trim();
  return t.steps
    .filter((s) => s.action.kind !== 'finish')
    .map((s, i) => `step${i + 1}: ${planOf(s).replace(/[.;]\s*$/, '')}`)
    .join('; ');
}

export function isCommand(t: Trajectory, i: number): boolean {
  const a = t.steps[i]?.action;
  return Boolean(a && (a.kind === 'shell' || a.kind === 'code' || a.kind === 'tool_call') && a.text.trim());
}
