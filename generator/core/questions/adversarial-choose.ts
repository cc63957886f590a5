/**
 * The adversarial filter's numeric core (adversarial-filter.ts describes the method): from each
 * draft's candidate feature rows it deals the fluency targets, runs the choosing rounds against
 * cross-fitted trees and AFLite's drop step, and says for each draft which candidates to show or
 * why it is dropped. It reads plain numbers and strings only, so it runs the same on a worker
 * thread (adversarial-thread.ts) as in the build's own thread. Which candidates a draft shows
 * against one model is adversarial-options.ts.
 */
import { dealGroups } from './audit/adversary.js';
import { fitTreesParts, type TreesScorerParts } from './audit/learners.js';
import { JUDGING_DEALINGS, LARGE_TASK, boundedTraining, dropPredictable } from './adversarial-drop.js';
import { planFluency } from './adversarial-fluency.js';
import { type CoreDraft, FINISH_MARKER, FLUENCY, LENGTH, SIMILARITY, chooseShown, combinedCredit, fluencyRangeOf, rowsOf } from './adversarial-options.js';
import { chooseOffThread, endChoosing } from './adversarial-options-thread.js';

export type { CoreDraft } from './adversarial-options.js';

/** A task with fewer drafts is left as drafted (the audit gates task-languages from 30 scored questions). */
export const MIN_ITEMS = 30;
/**
 * Most training drafts per fit of the filter's learners (the choosing rounds' trees and every
 * learner of the drop step); a larger training fold is subsampled by a hash of the draft's id.
 * Every draft is still chosen and judged by a model that never saw its source group. It keeps the
 * filter's cost per question bounded however large a task grows; the audit's own adversary always
 * trains on every question, and tasks this large give its learners more rows than they use.
 */
export const MAX_TRAINING = 1500;

/** Why the filter drops a draft: its gold is still found, or only the most fluent option could be gold and the task has enough of those. */
export type FilterDropReason = 'adversary-solvable' | 'fluency-unbalanced';

export interface CoreTask {
  seed: string;
  /** Source groups in first-seen order, and the folds they are dealt into. */
  groups: string[];
  k: number;
  rounds: number;
  maxExcess: number;
  drafts: CoreDraft[];
}

/** Per draft (aligned with the task's): why it is dropped, else the candidates to show (null: left as drafted). */
export interface CoreResult {
  dropped: Array<FilterDropReason | null>;
  shown: Array<number[] | null>;
}

export async function runFilterCore(task: CoreTask): Promise<CoreResult> {
  const { seed, k, drafts } = task;
  const result: CoreResult = { dropped: drafts.map(() => null), shown: drafts.map(() => null) };
  const fluency = planFluency(drafts.map(fluencyRangeOf), seed);
  const kept: number[] = [];
  drafts.forEach((p, i) => {
    if (fluency.dropped.has(i)) result.dropped[i] = 'fluency-unbalanced';
    else {
      p.fluentTarget = fluency.targets[i]!;
      kept.push(i);
    }
  });
  if (kept.length < 2 * k) return result;
  const prepared = kept.map((i) => drafts[i]!);
  for (let round = 0; round < task.rounds; round++) {
    // Every other fold's trees are fitted on the tree worker (when there is one) while this thread fits the rest.
    const parts: TreesScorerParts[] = new Array(k);
    const offThread = Array.from({ length: k }, (_, fold) => fold % 2 === 0);
    const remote = offThread.flatMap((off, fold) => (off ? [fitOn(prepared.filter((p) => p.fold !== fold), true).then((m) => (parts[fold] = m))] : []));
    for (let fold = 0; fold < k; fold++) if (!offThread[fold]) parts[fold] = await fitOn(prepared.filter((p) => p.fold !== fold), false);
    await Promise.all(remote);
    // Every other draft is chosen on the options worker (when there is one) while this thread chooses the rest.
    const away = prepared.filter((_, j) => j % 2 === 1);
    const chosenAway = chooseOffThread(away, parts, round === 0);
    chooseShown(chosenAway ? prepared.filter((_, j) => j % 2 === 0) : prepared, parts);
    if (chosenAway) (await chosenAway).forEach((shown, i) => (away[i]!.shown = shown));
  }
  await endChoosing();
  // AFLite's last step: every learner refitted on the chosen sets; drop what they still find.
  // Below LARGE_TASK drafts over six dealings of the groups into folds (the rounds' and five
  // more): three choose what to drop, three fresh ones judge when to stop (adversarial-drop.ts).
  // From LARGE_TASK drafts one dealing's estimate moves by about a point, and two are enough.
  const salts = prepared.length >= LARGE_TASK ? ['af/2'] : Array.from({ length: 2 * JUDGING_DEALINGS - 1 }, (_, d) => `af/${d + 2}`);
  const more = salts.map((salt) => dealGroups(task.groups, k, salt));
  const candidates = prepared.map((p) => ({ id: p.id, folds: [p.fold, ...more.map((d) => d.get(p.group)!)], language: p.language, scored: p.scored, rows: rowsOf(p, p.shown), rules: [combinedCredit(p, p.shown)] }));
  const solvable = await dropPredictable(candidates, { folds: k, maxExcess: task.maxExcess, minCell: MIN_ITEMS, guards: [LENGTH, FLUENCY, SIMILARITY], balanced: [FINISH_MARKER], maxTraining: MAX_TRAINING });
  prepared.forEach((p, j) => {
    if (solvable.has(j)) result.dropped[kept[j]!] = 'adversary-solvable';
    else result.shown[kept[j]!] = p.shown;
  });
  return result;
}

/** The discriminator the distractors are chosen against: the audit's gradient-boosted trees (`fitTreesParts`), the learner that found most on real builds. */
function fitOn(training: readonly CoreDraft[], offThread: boolean): Promise<TreesScorerParts> {
  const bounded = boundedTraining(training.map((_, i) => i), MAX_TRAINING, (i) => training[i]!.id).map((i) => training[i]!);
  return fitTreesParts(bounded.map((p) => ({ rows: rowsOf(p, p.shown), gold: 0 })), offThread);
}

