/**
 * Where a premature finish is offered. A finish that is only ever the gold is a cue (on the real
 * deep-research runs it was the gold in 26 of 29 questions offering it), and so is one offered as
 * a distractor only early in its run: a finish gold comes at the end of a run and shows all of it,
 * and paired within its own run the premature finishes always showed fewer steps (a step count
 * told them apart with AUC 0.79 on the shared builds).
 *
 * So each finish gold is paired, within its task and language, with K − 1 questions of any run
 * whose prompts show as many steps as its own (`stepTolerance`), and those questions offer their
 * own run's finish in place of a distractor: a finish among the options is the gold 1/K of the
 * time at every length of history. A finish gold without K − 1 such partners left is dropped
 * (at later steps the answer is usually in the prompt already, where finishing is no mistake and
 * no premature finish is offered, so there the finish golds outnumber their partners).
 *
 * Partners also share their finish gold's style (`McqDraft.swap`): a finish gold among
 * re-check swaps pairs with swap questions, one among mixed distractors with mixed ones. Paired
 * across styles, the style told them apart: the finish was the gold in 18 of 23 mixed questions
 * offering one and in none of 45 swap questions (shared builds, seeds 0–2).
 * Pure: it reads the drafts and says which to change and which to drop.
 */
import { hashSeed } from '../kernel/rng.js';
import type { Trajectory } from '../trajectories/types.js';
import type { McqDraft, QuestionDraft } from './types/module.js';

export interface FinishCandidate {
  draft: QuestionDraft;
  /** The run's finish is this question's gold. */
  finishGold: boolean;
  /** Drafts pair only within a cell (task and language). */
  cell: string;
  /** A stable name (the question id): the order among equals. */
  key: string;
  /** How closely the options repeat a shown step (`McqDraft.swap.echo`); partners match it within ECHO_TOLERANCE. */
  echo?: number;
}

/**
 * How far a partner's echo may be from its finish gold's. A finish gold's re-checks repeat an
 * earlier step (echo near 1) and most real next steps do not: paired across echoes, the finish
 * was the gold in 19 of 33 questions whose options repeated an executed step and in none of 45
 * whose options were new (shared builds, seeds 0–2).
 */
export const ECHO_TOLERANCE = 0.15;

/**
 * Offers a premature finish in `choices − 1` drafts per finish gold, in place of one distractor,
 * and returns the indices of the finish golds left unpaired (to drop). Golds take their partners
 * in seeded order. Every draft's `finishOption` is removed.
 */
export function pairFinishes(candidates: readonly FinishCandidate[], choices: number, seed: string): Set<number> {
  const unpaired = new Set<number>();
  const cells = new Map<string, number[]>();
  candidates.forEach((c, i) => {
    if (!c.draft.mcq) return;
    const list = cells.get(c.cell) ?? [];
    list.push(i);
    cells.set(c.cell, list);
  });
  const ranks = candidates.map((c) => hashSeed(`${seed}\u0000finish\u0000${c.key}`));
  const byRank = (a: number, b: number) => ranks[a]! - ranks[b]! || (candidates[a]!.key < candidates[b]!.key ? -1 : 1);
  for (const members of cells.values()) {
    const golds = members.filter((i) => candidates[i]!.finishGold).sort(byRank);
    if (golds.length === 0) continue;
    // Partners by the steps their prompts show, each step's list in seeded order.
    const byStep = new Map<number, number[]>();
    for (const i of members) {
      if (candidates[i]!.finishGold || !candidates[i]!.draft.mcq!.finishOption) continue;
      const step = candidates[i]!.draft.step ?? 0;
      const list = byStep.get(step);
      if (list) list.push(i);
      else byStep.set(step, [i]);
    }
    for (const list of byStep.values()) list.sort(byRank);
    const steps = [...byStep.keys()].sort((a, b) => a - b);
    for (const g of golds) {
      const echo = candidates[g]!.echo;
      const fits = (i: number) => echo === undefined || candidates[i]!.echo === undefined || Math.abs(candidates[i]!.echo! - echo) <= ECHO_TOLERANCE;
      const taken = takeNearest(byStep, steps, candidates[g]!.draft.step ?? 0, choices - 1, ranks[g]! % 2 === 0, fits);
      if (!taken) {
        unpaired.add(g);
        continue;
      }
      for (const partner of taken) offerFinish(candidates[partner]!.draft.mcq!);
    }
  }
  for (const c of candidates) {
    if (!c.draft.mcq) continue;
    delete c.draft.mcq.finishOption;
    delete c.draft.mcq.swap;
  }
  return unpaired;
}

/**
 * Steps either side of `step` a partner may show: none in short runs, where one step more is a
 * large share of the run, and an eighth of them in long ones.
 */
export function stepTolerance(step: number): number {
  return Math.floor(step / 8);
}

/**
 * Takes `count` partners whose prompts show the steps nearest `step` (within its tolerance; the
 * fewer or the more steps first on a tie, as `fewerFirst` says), or none when fewer are left.
 */
function takeNearest(byStep: Map<number, number[]>, steps: readonly number[], step: number, count: number, fewerFirst: boolean, fits: (i: number) => boolean): number[] | null {
  const tolerance = stepTolerance(step);
  const near = steps
    .filter((s) => Math.abs(s - step) <= tolerance)
    .sort((a, b) => Math.abs(a - step) - Math.abs(b - step) || (fewerFirst ? a - b : b - a));
  const available = near.reduce((n, s) => n + byStep.get(s)!.filter(fits).length, 0);
  if (available < count) return null;
  const taken: number[] = [];
  for (const s of near) {
    const list = byStep.get(s)!;
    for (let j = 0; j < list.length && taken.length < count; ) {
      if (fits(list[j]!)) taken.push(list.splice(j, 1)[0]!);
      else j++;
    }
  }
  return taken;
}

/**
 * Puts the draft's finish in place of the distractor the filter would give up first (the last of
 * its alternatives, else the last shown), pinned: it is left out of the alternatives.
 */
export function offerFinish(mcq: McqDraft): void {
  const finish = mcq.finishOption;
  if (!finish) return;
  const order = new Map((mcq.alternatives ?? []).map((a, j) => [a.text, j]));
  let replaced = -1;
  mcq.choices.forEach((text, i) => {
    if (i === mcq.gold) return;
    if (replaced < 0 || (order.get(text) ?? Infinity) >= (order.get(mcq.choices[replaced]!) ?? Infinity)) replaced = i;
  });
  if (replaced < 0) return;
  const removed = mcq.choices[replaced]!;
  mcq.choices[replaced] = finish.text;
  mcq.sources[replaced] = finish.source;
  if (mcq.reasons) mcq.reasons[replaced] = finish.reason;
  if (mcq.alternatives) mcq.alternatives = mcq.alternatives.filter((a) => a.text !== removed);
  delete mcq.finishOption;
}

/**
 * `pairFinishes` over a kind's entries, each draft's run finished where `cellOf` says: the
 * entries kept (finish golds left unpaired removed) and how many were removed.
 */
export function pairFinishesOf<E extends { draft: QuestionDraft; t: Trajectory; id: string }>(entries: readonly E[], cellOf: (t: Trajectory) => string, choices: number, seed: string): { kept: E[]; unpaired: number } {
  const finishGold = (e: E) => e.draft.step !== null && e.t.steps[e.draft.step]?.action.kind === 'finish';
  const unpaired = pairFinishes(
    entries.map((e) => {
      const swap = e.draft.mcq?.swap;
      return { draft: e.draft, finishGold: finishGold(e), cell: `${cellOf(e.t)}\u0000${swap ? 'swap' : 'mixed'}`, key: e.id, ...(swap ? { echo: swap.echo } : {}) };
    }),
    choices,
    seed,
  );
  return { kept: entries.filter((_, i) => !unpaired.has(i)), unpaired: unpaired.size };
}
