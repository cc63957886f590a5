/**
 * Fluency targets for the adversarial filter. A real next step writes its query in the words and
 * word order the context already uses, so on real builds "pick the option that reads most fluently
 * under the context's bigram model" was the strongest single surface cue (40–44% against 25%
 * chance), and in about a third of the drafts no candidate distractor read as fluently as the
 * gold: there, whatever is shown, the gold is the most fluent option.
 *
 * So the targets are dealt per task and language like the finish steps are: the gold may be the
 * most fluent option in 1/K of the questions. Drafts that can only show it so (no candidate as
 * fluent as the gold) take those places first; the rest of them are dropped (`fluency-unbalanced`).
 * Every other draft gets a seeded target for how many shown distractors read at least as
 * fluently as the gold, uniform over what its candidates allow (at least 1).
 */
import { hashSeed, Rng } from '../kernel/rng.js';

export interface FluencyRange {
  id: string;
  language: string;
  /** Options shown (gold included). */
  options: number;
  /** Fewest and most shown distractors that can read at least as fluently as the gold. */
  min: number;
  max: number;
}

export interface FluencyPlan {
  /** Target per draft, aligned with the input; undefined for a dropped draft. */
  targets: Array<number | undefined>;
  /** Indices of the drafts dropped as `fluency-unbalanced`. */
  dropped: Set<number>;
}

/** Feasible range for a draft: `pinned` always shown, `need` more chosen from `alternatives` (fluency of each vs the gold's). */
export function fluencyRange(gold: number, pinned: readonly number[], alternatives: readonly number[], need: number): { min: number; max: number } {
  const pinnedAtLeast = pinned.filter((f) => f >= gold).length;
  const altAtLeast = alternatives.filter((f) => f >= gold).length;
  const altBelow = alternatives.length - altAtLeast;
  return { min: pinnedAtLeast + Math.max(0, need - altBelow), max: pinnedAtLeast + Math.min(need, altAtLeast) };
}

export function planFluency(ranges: readonly FluencyRange[], seed: string): FluencyPlan {
  const targets: Array<number | undefined> = new Array(ranges.length).fill(undefined);
  const dropped = new Set<number>();
  const order = (ids: number[]) => ids.sort((a, b) => hashSeed(`${seed}/fluency/${ranges[a]!.id}`) - hashSeed(`${seed}/fluency/${ranges[b]!.id}`) || (ranges[a]!.id < ranges[b]!.id ? -1 : 1));
  for (const language of [...new Set(ranges.map((r) => r.language))].sort()) {
    const members = ranges.map((_, i) => i).filter((i) => ranges[i]!.language === language);
    let budget = Math.round(members.reduce((s, i) => s + 1 / ranges[i]!.options, 0));
    const forced = order(members.filter((i) => ranges[i]!.max === 0));
    for (const i of forced) {
      if (budget > 0) {
        targets[i] = 0;
        budget--;
      } else dropped.add(i);
    }
    // Zero places left go to drafts that could show it either way, in seeded order; each other
    // draft's target is uniform over what its candidates allow, from 1.
    const flexible = order(members.filter((i) => ranges[i]!.max > 0));
    for (const i of flexible) {
      const r = ranges[i]!;
      if (r.min === 0 && budget > 0) {
        targets[i] = 0;
        budget--;
        continue;
      }
      const low = Math.max(1, r.min);
      targets[i] = low + new Rng(`${seed}/fluency-target/${r.id}`).int(r.max - low + 1);
    }
  }
  return { targets, dropped };
}
