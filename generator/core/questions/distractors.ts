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
  keyOf: (value: T) => string | readonly string[],
  goldKey: string | readonly string[],
  excluded: ReadonlySet<string>,
  count: number,
  weights: Readonly<Record<string, number>> = {},
): Array<Chosen<T>> {
  // Several keys per value: a value is a duplicate when any one of them was seen before.
  const keysOf = (k: string | readonly string[]) => (typeof k === 'string' ? [`0:${k}`] : k.map((x, i) => `${i}:${x}`));
  const used = new Set<string>([...keysOf(goldKey), ...[...excluded].map((k) => `0:${k}`)]);
  // An operator of weight w enters the draw w times (as w tickets), so it supplies about w
  // times as many distractors as a weight-1 operator when both have candidates.
  const tickets = proposals
    .filter((p) => p.values.length > 0)
    .flatMap((p) => Array.from({ length: Math.max(1, weights[p.operator] ?? 1) }, () => p));
  const queues = new Map(proposals.map((p) => [p.operator, [...p.values]]));
  const out: Array<Chosen<T>> = [];
  let progressed = true;
  while (out.length < count && progressed) {
    progressed = false;
    for (const ticket of rng.shuffle(tickets)) {
      if (out.length >= count) break;
      const queue = queues.get(ticket.operator)!;
      while (queue.length > 0) {
        const value = queue.shift() as T;
        const raw = keyOf(value);
        const keys = keysOf(raw);
        if ((typeof raw === 'string' ? !raw : raw.some((k) => !k)) || keys.some((k) => used.has(k))) continue;
        for (const k of keys) used.add(k);
        out.push({ value, operator: ticket.operator });
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
