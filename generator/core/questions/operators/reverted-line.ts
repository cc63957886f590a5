import { cloneDiff } from '../diff.js';
import { render } from './patch-edits.js';
import type { PatchOperator } from './types.js';

/**
 * The fix with one of its changes undone: a removed line is kept and the added line that
 * replaced it is dropped, so the patch is incomplete in a plausible way.
 */
export const revertedLine: PatchOperator = {
  name: 'reverted_line',
  description: 'the patch with one changed line reverted to the original',
  propose({ rng, gold }) {
    const spots: Array<[number, number, number]> = [];
    gold.forEach((f, fi) => f.hunks.forEach((h, hi) => h.lines.forEach((l, li) => {
      if (l.startsWith('-') && h.lines[li + 1]?.startsWith('+')) spots.push([fi, hi, li]);
    })));
    const plusOnly: Array<[number, number, number]> = [];
    gold.forEach((f, fi) => f.hunks.forEach((h, hi) => {
      const plus = h.lines.map((l, li) => (l.startsWith('+') ? li : -1)).filter((i) => i >= 0);
      const minus = h.lines.some((l) => l.startsWith('-'));
      // Dropping one of several added lines (in a pure addition) is also a partial revert.
      if (!minus && plus.length > 1) plusOnly.push([fi, hi, plus[rng.int(plus.length)]!]);
    }));
    const pick = spots.length > 0 ? rng.pick(spots) : plusOnly.length > 0 ? rng.pick(plusOnly) : undefined;
    if (!pick) return [];
    const copy = cloneDiff(gold);
    const [fi, hi, li] = pick;
    const lines = copy[fi]!.hunks[hi]!.lines;
    if (lines[li]!.startsWith('-')) {
      lines[li] = ` ${lines[li]!.slice(1)}`;
      lines.splice(li + 1, 1);
    } else lines.splice(li, 1);
    // Reverting the only change leaves a patch that changes nothing: not a plausible candidate.
    const stillChanges = copy.some((f) => f.hunks.some((h) => h.lines.some((l) => l.startsWith('+') || l.startsWith('-'))));
    return stillChanges ? [render(copy)] : [];
  },
};
