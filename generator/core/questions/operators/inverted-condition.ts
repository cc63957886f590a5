import { parseDiff } from '../diff.js';
import { addedLines, editAddedLine } from './patch-edits.js';
import type { PatchOperator } from './types.js';

// Comparisons first: flipping `>` to `<=` reads as a real bug; `if` → `if not` is the fallback.
const FLIPS: Array<[RegExp, string]> = [
  [/ === /, ' !== '],
  [/ !== /, ' === '],
  [/ == /, ' != '],
  [/ != /, ' == '],
  [/ >= /, ' < '],
  [/ <= /, ' > '],
  [/ > /, ' <= '],
  [/ < /, ' >= '],
  [/ is not /, ' is '],
  [/ is (?!not )/, ' is not '],
  [/ not in /, ' in '],
  [/ && /, ' || '],
  [/ \|\| /, ' && '],
  [/ and /, ' or '],
  [/ or /, ' and '],
  [/\bTrue\b/, 'False'],
  [/\bFalse\b/, 'True'],
  [/\bif not /, 'if '],
  [/\bif (?!not )/, 'if not '],
];

export function invertCondition(code: string): string | null {
  for (const [re, to] of FLIPS) if (re.test(code)) return code.replace(re, to);
  return null;
}

/** The fix with one condition inverted (== ↔ !=, is ↔ is not, and ↔ or, True ↔ False…). */
export const invertedCondition: PatchOperator = {
  name: 'inverted_condition',
  description: 'the patch with one added condition inverted',
  propose({ rng, gold }) {
    for (const at of rng.shuffle(addedLines(gold))) {
      const out = editAddedLine(gold, at, invertCondition);
      if (out) return [out];
    }
    return [];
  },
};

export { parseDiff };
