import { identifiersIn, pathsIn, replaceInCandidate } from './edit.js';
import { factsOf } from './facts.js';
import type { StepCandidate, StepOperator } from './types.js';

/**
 * Same tool, wrong argument: another identifier from the trajectory in place of a search
 * term or name, or a shifted number (line range, version, count).
 */
export const offTargetArgument: StepOperator = {
  name: 'off_target_argument',
  description: 'the same tool with a wrong argument (another identifier, query word or number)',
  propose({ rng, trajectory, gold }) {
    const text = gold.action.text;
    const pathChars = new Set(pathsIn(text).flatMap((p) => identifiersIn(p)));
    // Argument names are structure, not values: replacing `text` in `{"text": …}` is no perturbation.
    const keys = new Set(Object.keys(gold.action.args));
    const own = identifiersIn(text).filter(
      (w) => !pathChars.has(w) && !keys.has(w) && w !== gold.action.tool && !/^(grep|find|python|python3|pytest|cat|sed|echo|view|create|str_replace|insert|command|path)$/.test(w),
    );
    const out: StepCandidate[] = [];
    // Up to three different words, each replaced by a word of the trajectory's own vocabulary.
    for (const target of rng.shuffle(own).slice(0, 3)) {
      // Of the same length, so that a perturbed option is not systematically longer (the audit's
      // longest-option baseline catches that).
      const choices = factsOf(trajectory).vocabulary.filter((w) => w !== target && !text.includes(w) && w.length === target.length);
      if (choices.length > 0) out.push(replaceInCandidate(gold, target, rng.pick(choices)));
    }
    const numbers = [...text.matchAll(/(?<![\w.])(\d{1,5})(?![\w.])/g)].map((m) => m[1]!);
    if (numbers.length > 0) {
      const n = rng.pick(numbers);
      const delta = [1, -1, 10, 2][rng.int(4)]!;
      const shifted = String(Math.max(0, Number(n) + delta));
      if (shifted !== n) out.push(replaceInCandidate(gold, n, shifted));
    }
    return out;
  },
};
