import { addedLines, editAddedLine } from './patch-edits.js';
import type { PatchOperator } from './types.js';

export function shiftByOne(code: string): string | null {
  if (/ < /.test(code)) return code.replace(/ < /, ' <= ');
  if (/ <= /.test(code)) return code.replace(/ <= /, ' < ');
  if (/ - 1\b/.test(code)) return code.replace(/ - 1\b/, '');
  if (/ \+ 1\b/.test(code)) return code.replace(/ \+ 1\b/, '');
  const num = /(?<![\w.])(\d+)(?![\w.])/.exec(code);
  if (num) return code.slice(0, num.index) + String(Number(num[1]) + 1) + code.slice(num.index + num[1]!.length);
  const index = /\[(-?\d+)\]/.exec(code);
  if (index) return code.replace(index[0], `[${Number(index[1]) + 1}]`);
  return null;
}

/** The fix with an off-by-one change in one added line (< ↔ <=, ±1, a shifted literal). */
export const offByOne: PatchOperator = {
  name: 'off_by_one',
  description: 'the patch with an off-by-one change in one added line',
  propose({ rng, gold }) {
    for (const at of rng.shuffle(addedLines(gold))) {
      const out = editAddedLine(gold, at, shiftByOne);
      if (out) return [out];
    }
    return [];
  },
};
