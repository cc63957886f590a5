import type { Trajectory } from '../../trajectories/types.js';

/**
 * Tool names the prompt offers: the tools the agent was given (declared in the source), or,
 * when the source declares none, the tools used before `position` (never later ones, which
 * would leak the future).
 */
export function offeredToolsBefore(t: Trajectory, position: number): string[] {
  const declared = t.environment.tools.map((x) => x.name).filter(Boolean);
  if (declared.length > 0) return [...new Set(declared)].sort();
  const seen = t.steps.slice(0, position).map((s) => s.action.tool).filter((x): x is string => Boolean(x));
  return [...new Set(seen)].sort();
}
