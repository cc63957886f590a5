import { cloneDiff } from '../diff.js';
import { render } from './patch-edits.js';
import type { PatchOperator } from './types.js';

/**
 * A wrong hunk: with several hunks, one is left out; with one, its change is moved to a
 * different context line (the right edit in the wrong place).
 */
export const wrongHunk: PatchOperator = {
  name: 'wrong_hunk',
  description: 'a hunk missing, or the change applied at the wrong place',
  propose({ rng, gold }) {
    const hunks: Array<[number, number]> = [];
    gold.forEach((f, fi) => f.hunks.forEach((_, hi) => hunks.push([fi, hi])));
    if (hunks.length >= 2) {
      const [fi, hi] = rng.pick(hunks);
      const copy = cloneDiff(gold);
      copy[fi]!.hunks.splice(hi, 1);
      return [render(copy.filter((f) => f.hunks.length > 0))];
    }
    const only = hunks[0];
    if (!only) return [];
    const copy = cloneDiff(gold);
    const hunk = copy[only[0]]!.hunks[only[1]]!;
    const firstChange = hunk.lines.findIndex((l) => l.startsWith('+') || l.startsWith('-'));
    let lastChange = -1;
    hunk.lines.forEach((l, i) => { if (l.startsWith('+') || l.startsWith('-')) lastChange = i; });
    if (firstChange < 0) return [];
    const block = hunk.lines.slice(firstChange, lastChange + 1);
    const context = [...hunk.lines.slice(0, firstChange), ...hunk.lines.slice(lastChange + 1)];
    if (context.length < 2) return [];
    // Re-insert the change block at a different context position.
    const positions = Array.from({ length: context.length + 1 }, (_, i) => i).filter((i) => i !== firstChange);
    const at = rng.pick(positions);
    hunk.lines = [...context.slice(0, at), ...block, ...context.slice(at)];
    return [render(copy)];
  },
};
