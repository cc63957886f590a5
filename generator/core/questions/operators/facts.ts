import type { Trajectory } from '../../trajectories/types.js';
import { identifiersIn, pathsIn } from './edit.js';

/**
 * Per-trajectory facts several operators need (paths and identifiers the agent saw). Scanning
 * observations is the costly part of building, so each trajectory is scanned once.
 */
interface Facts {
  actionPaths: string[];
  observedPaths: string[];
  vocabulary: string[];
}

const cache = new WeakMap<Trajectory, Facts>();

export function factsOf(t: Trajectory): Facts {
  const hit = cache.get(t);
  if (hit) return hit;
  const actionPaths = new Set<string>();
  const observedPaths = new Set<string>();
  const vocabulary = new Set<string>(identifiersIn(t.task.goal, 120));
  for (const s of t.steps) {
    for (const p of pathsIn(s.action.text)) actionPaths.add(p);
    if (s.observation) {
      for (const p of pathsIn(s.observation.slice(0, 20000), 60)) observedPaths.add(p);
      for (const w of identifiersIn(s.observation.slice(0, 8000), 80)) vocabulary.add(w);
    }
  }
  const facts = { actionPaths: [...actionPaths], observedPaths: [...observedPaths], vocabulary: [...vocabulary] };
  cache.set(t, facts);
  return facts;
}
