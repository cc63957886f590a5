import { normalisePatch } from '../diff.js';
import type { PatchOperator } from './types.js';

/**
 * Negative sampling: the patch of another trajectory, from the same repository when possible.
 * Several runs on one instance share a patch, so identical ones are left out.
 */
export const borrowedPatch: PatchOperator = {
  name: 'borrowed_patch',
  description: "another trajectory's patch (same repository first)",
  propose({ rng, trajectory, corpus, patchOf, goldText }) {
    const gold = normalisePatch(goldText);
    const pool = corpus.patches(trajectory, patchOf);
    for (let attempt = 0; attempt < 8 && pool.length > 0; attempt++) {
      const p = pool[rng.int(pool.length)]!;
      if (p.traj_id !== trajectory.traj_id && p.key !== gold) return [p.patch];
    }
    return [];
  },
};
