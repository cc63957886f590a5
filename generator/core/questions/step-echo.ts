/**
 * How closely a step repeats one the prompt already shows: the largest character-bigram Dice
 * similarity between its content (plan and argument values) and that of an earlier step calling
 * the same tool. Character bigrams read Chinese as well as English, and the JSON keys every step
 * repeats are left out. A finish gold's re-check distractors are an earlier step with one entity
 * swapped (close to 1); most real next steps are new searches (well below): finish-pairs.ts
 * pairs a finish gold only with questions whose options repeat the prompt about as closely.
 */
import type { StepCandidate } from './operators/types.js';

export function stepEcho(option: StepCandidate, shown: readonly StepCandidate[]): number {
  const own = bigrams(content(option));
  let best = 0;
  for (const s of shown) {
    if (s.action.tool !== option.action.tool) continue;
    best = Math.max(best, dice(own, bigrams(content(s))));
  }
  return best;
}

function content(c: StepCandidate): string {
  const values = Object.values(c.action.args ?? {}).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return [c.plan, ...values].join('\n').toLowerCase().replace(/\s+/g, ' ');
}

function bigrams(text: string): Map<string, number> {
  const chars = [...text];
  const out = new Map<string, number>();
  for (let i = 1; i < chars.length; i++) {
    const gram = chars[i - 1]! + chars[i]!;
    out.set(gram, (out.get(gram) ?? 0) + 1);
  }
  return out;
}

function dice(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let total = 0;
  let shared = 0;
  for (const n of a.values()) total += n;
  for (const [gram, n] of b) {
    total += n;
    shared += Math.min(n, a.get(gram) ?? 0);
  }
  return total === 0 ? 0 : (2 * shared) / total;
}
