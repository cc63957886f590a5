import type { Rng } from '../kernel/rng.js';
import { STEP_OPERATORS, type StepOperatorName } from './operators/index.js';
import type { StepCandidate, StepOperatorContext } from './operators/types.js';

export interface Chosen<T> {
  value: T;
  operator: string;
}

/**
 * Picks `count` distractors from operator proposals. A proposal is dropped when its key
 * (the normalised text the model would compare) equals the gold's, an excluded key (other
 * valid next steps) or an earlier pick. Operators take turns in a seeded order, so a
 * question mixes perturbation types instead of drawing all from the most prolific one.
 */
export function pickDistinct<T>(
  rng: Rng,
  proposals: Array<{ operator: string; values: T[] }>,
  keyOf: (value: T) => string,
  goldKey: string,
  excluded: ReadonlySet<string>,
  count: number,
): Array<Chosen<T>> {
  const used = new Set<string>([goldKey, ...excluded]);
  const queues = rng.shuffle(proposals.filter((p) => p.values.length > 0)).map((p) => ({ operator: p.operator, values: [...p.values] }));
  const out: Array<Chosen<T>> = [];
  let progressed = true;
  while (out.length < count && progressed) {
    progressed = false;
    for (const q of queues) {
      if (out.length >= count) break;
      while (q.values.length > 0) {
        const value = q.values.shift() as T;
        const key = keyOf(value);
        if (!key || used.has(key)) continue;
        used.add(key);
        out.push({ value, operator: q.operator });
        progressed = true;
        break;
      }
    }
  }
  return out;
}

export function proposeSteps(ctx: StepOperatorContext, operators: readonly StepOperatorName[]): Array<{ operator: string; values: StepCandidate[] }> {
  return operators.map((name) => ({
    operator: name,
    values: STEP_OPERATORS[name].propose({ ...ctx, rng: ctx.rng.fork(name) }),
  }));
}

/** Places the gold at a seeded position among the distractors. */
export function arrange(rng: Rng, gold: string, distractors: Array<Chosen<string>>): { choices: string[]; gold: number; sources: string[] } {
  const goldAt = rng.int(distractors.length + 1);
  const order = rng.shuffle(distractors);
  const choices: string[] = [];
  const sources: string[] = [];
  for (const d of order) {
    choices.push(d.value);
    sources.push(d.operator);
  }
  choices.splice(goldAt, 0, gold);
  sources.splice(goldAt, 0, 'gold');
  return { choices, gold: goldAt, sources };
}
