import { readFileSync, readdirSync } from 'node:fs';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { fixtures } from '../helpers/env.js';

/** The hand-made canonical trajectories, read with a plain JSONL parse (no reader involved). */
export function loadCanonical(...names: string[]): Trajectory[] {
  const files = names.length > 0 ? names.map((n) => `${n}.jsonl`) : readdirSync(fixtures('canonical')).filter((f) => f.endsWith('.jsonl')).sort();
  return files.flatMap((f) =>
    readFileSync(fixtures('canonical', f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Trajectory),
  );
}

export function byId(trajectories: Trajectory[], id: string): Trajectory {
  const t = trajectories.find((x) => x.traj_id === id);
  if (!t) throw new Error(`no fixture trajectory ${id}`);
  return t;
}
