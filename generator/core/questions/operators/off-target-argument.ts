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
    const own = identifiersIn(text).filter((w) => !pathChars.has(w) && w !== gold.action.tool && !/^(grep|find|python|python3|pytest|cat|sed|echo|view|create|str_replace|insert|command|path)$/.test(w));
    const out: StepCandidate[] = [];
    if (own.length > 0) {
      const target = rng.pick(own);
      const choices = factsOf(trajectory).vocabulary.filter((w) => w !== target && !text.includes(w) && Math.abs(w.length - target.length) <= 8).sort();
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
