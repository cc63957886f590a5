/**
 * AFLite's last step. After the distractors are chosen, the audit's model learners
 * (audit/learners.ts) are fitted afresh on the chosen option sets, cross-fitted over
 * the filter's source-grouped folds, and each draft's held-out margin (gold score minus the best
 * distractor's) is read. While the strongest learner's held-out accuracy in any language — or in
 * the task as a whole — is more than `maxExcess` above chance, the drafts it finds most clearly in
 * that cell are dropped and the learners still above it are refitted: a cue the choosing rounds
 * left behind is removed with the drafts that carry it, rather than judged by a model that was one
 * round stale. The loop ends only after a refit of every learner finds none above the limit.
 */
import { ADVERSARY_LEARNERS, fitTrees, type Scorer, type TrainingQuestion, type WarmStart } from './audit/learners.js';
import { argmaxCredit } from './audit/shortcuts/types.js';
import { hashSeed } from '../kernel/rng.js';

/**
 * The learners whose held-out finds are dropped: the regressions and the trees. Dropping what the single-feature
 * learner finds removes a whole slice of one feature and leaves its reverse as a cue (on the shared
 * data "avoid the longest option" fell to 15%, a failing shortcut); that learner is judged by the
 * audit, and its feature is balanced when the distractors are chosen instead.
 */
const DROP_LEARNERS = ADVERSARY_LEARNERS.filter((l) => l.name !== 'single-feature');

export interface DropCandidate {
  id: string;
  /** The candidate's fold under each dealing of the source groups (every candidate lists the same number). */
  folds: readonly number[];
  language: string;
  /**
   * False for a few-shot example. The audit judges the scored questions alone, and without the
   * examples a cue can read several points stronger: each language's scored drafts are a cell of
   * their own (default true).
   */
  scored?: boolean;
  /** Raw feature rows of the shown options, the gold first. */
  rows: number[][];
  /**
   * The gold's credit under each fixed rule the audit gates over the whole task (its combined
   * rule). The choosing rounds aim it at chance; dropping the drafts a learner finds must not
   * carry it away: a draft is not dropped when that would bring a rule's share further from
   * chance and more than `maxExcess` from it, either way.
   */
  rules?: readonly number[];
}

export interface DropOptions {
  /** Folds per dealing. */
  folds: number;
  /** Largest held-out accuracy above chance tolerated, as a fraction (0.05 = 5 points). */
  maxExcess: number;
  /** A language is judged on its own from this many drafts (the whole task always is). */
  minCell: number;
  /** Share of a failing cell dropped per refit. */
  step?: number;
  /**
   * Feature columns read as "pick the highest" rules (length, fluency, similarity). Dropping the
   * drafts a learner finds tends to remove those where the gold tops such a feature, which would
   * leave "avoid the highest" as a cue: a draft is not dropped when that would bring the share of
   * kept drafts whose gold tops a guarded feature more than `maxExcess` below chance.
   */
  guards?: readonly number[];
  /**
   * 0/1 marker columns (the finish marker) whose option is the gold, among the kept drafts of a
   * language that offer it, about as often as chance. The build pairs each finish gold with
   * premature finishes to that share; a draft is not dropped when that would bring the share
   * further from chance and more than `maxExcess` from it (dropping the finish golds the learners
   * find would leave "avoid the finish" as a cue).
   */
  balanced?: readonly number[];
  /**
   * Most training drafts per fit: a larger training fold is subsampled to this many (bounded-training).
   * A fit's cost grows with its training rows, the scoring of the held-out fold does not need them.
   */
  maxTraining?: number;
}

/**
 * At most `cap` of `indices` (in their order): those whose `key` hashes lowest. Each draft keeps
 * its hash from fit to fit, so a refit on a few drafts fewer trains on nearly the same ones.
 */
export function boundedTraining(indices: readonly number[], cap: number | undefined, key: (i: number) => string): number[] {
  if (cap === undefined || indices.length <= cap) return [...indices];
  const ranked = indices.map((i) => ({ i, key: key(i), hash: hashSeed(`bounded-training/${key(i)}`) }));
  ranked.sort((a, b) => a.hash - b.hash || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const chosen = new Set(ranked.slice(0, cap).map((r) => r.i));
  return indices.filter((i) => chosen.has(i));
}

/** Indices of the candidates to drop; deterministic (ties broken by id). */
export async function dropPredictable(candidates: readonly DropCandidate[], options: DropOptions): Promise<Set<number>> {
  const dropped = new Set<number>();
  const step = options.step ?? 0.05;
  // The learners refitted at this pass. One within bounds at its last fit is refitted again only
  // when none of the others is above them (a third to two thirds of the fits): drops rarely lift
  // a learner, and when one does, that confirming refit finds it and the loop goes on.
  let active = DROP_LEARNERS.map((_, l) => l);
  // Each (learner, dealing, fold) is refitted on its training drafts less the few just dropped: the
  // logistic learners start from where their last fit ended.
  const warm = new Map<string, WarmStart>();
  for (let refit = 0; refit < 100; refit++) {
    const kept = candidates.map((_, i) => i).filter((i) => !dropped.has(i));
    if (kept.length < options.minCell) break;
    const dealings = candidates[0]?.folds.length ?? 0;
    const all = Array.from({ length: dealings }, (_, d) => d);
    // Below LARGE_TASK drafts, whether to stop is read on the second half of the dealings and
    // which drafts to drop on the first. Dropping what one dealing's held-out fits find leaves a
    // set that dealing reads low (its lucky misses stay); a fresh dealing reads it as the audit
    // will, several points higher on the shared builds.
    const split = kept.length < LARGE_TASK && dealings >= 2 * JUDGING_DEALINGS;
    let margins: Margins | null;
    let judged: ReturnType<typeof judge>;
    if (split) {
      margins = await heldOutMargins(candidates, kept, options.folds, active, warm, options.maxTraining, all.slice(dealings / 2));
      if (!margins) break;
      judged = judge(candidates, kept, margins, options);
    } else {
      // With many drafts, the first dealing alone, then the others unless it finds a cell of at
      // least LARGE_TASK drafts far above the limit (more than FAR_ABOVE times it): there the drops
      // are certain and a second estimate would only reorder them. Every decision to stop is made on
      // the mean over all dealings.
      const first = kept.length >= LARGE_TASK ? [0] : all;
      margins = await heldOutMargins(candidates, kept, options.folds, active, warm, options.maxTraining, first);
      if (!margins) break;
      judged = judge(candidates, kept, margins, options);
      const worst = judged.ranked[0];
      const settled = worst !== undefined && worst.excess > FAR_ABOVE * options.maxExcess && worst.members.length >= LARGE_TASK;
      if (first.length < dealings && !settled) {
        const rest = await heldOutMargins(candidates, kept, options.folds, active, warm, options.maxTraining, all.slice(1));
        if (!rest) break;
        margins = pooled(margins, 1, rest, dealings - 1);
        judged = judge(candidates, kept, margins, options);
      }
    }
    const { above, ranked } = judged;
    if (ranked.length === 0) {
      if (active.length === DROP_LEARNERS.length) break;
      active = DROP_LEARNERS.map((_, l) => l);
      continue;
    }
    active = [...above].sort((a, b) => a - b);
    const guard = guardState(candidates, kept, options);
    const before = dropped.size;
    // The worst cell and learner first; when the guards block every draft it finds, the next one
    // above the limit (a cell whose drops would unbalance a guarded rule must not keep the other
    // cells from being filtered).
    const choosing = new Map<number, Margins>();
    for (const { members, learner, excess } of ranked) {
      const chooseBy = !split ? margins : (choosing.get(learner) ?? (await heldOutMargins(candidates, kept, options.folds, [learner], warm, options.maxTraining, all.slice(0, dealings / 2))));
      if (!chooseBy) break;
      choosing.set(learner, chooseBy);
      const byLearner = chooseBy.get(learner)!;
      const found = members
        .filter((i) => byLearner.get(i)!.credit > 0)
        .sort((a, b) => byLearner.get(b)!.margin - byLearner.get(a)!.margin || (candidates[a]!.id < candidates[b]!.id ? -1 : 1));
      // Far above the limit, half the excess goes at once (AFLite drops a fixed share per round);
      // near it, `step` of the cell per refit.
      const take = Math.max(1, Math.ceil(Math.max(step, excess / 2) * members.length));
      for (const i of found) {
        if (dropped.size - before >= take) break;
        if (guard.blocks(i)) continue;
        guard.drop(i);
        dropped.add(i);
      }
      if (dropped.size > before) break;
    }
    if (dropped.size === before) break;
  }
  return dropped;
}

/** Dealings a small task's stop is judged on (as many again choose its drops). */
export const JUDGING_DEALINGS = 3;
/** A first dealing more than this many times the limit above chance is not confirmed on the others before drafts are dropped (from LARGE_TASK drafts). */
const FAR_ABOVE = 3;
/** Drafts from which one dealing's held-out accuracy is trusted far from the limit (its binomial error is about a point). */
export const LARGE_TASK = 1000;

type Margins = Map<number, Map<number, { credit: number; margin: number }>>;

/** The cells (the whole task, each language with `minCell` drafts, and its scored drafts when some are few-shot examples) and learners above the limit, most above chance first, and every learner above the limit in some cell. */
function judge(candidates: readonly DropCandidate[], kept: readonly number[], margins: Margins, options: DropOptions) {
  const cells = [{ language: 'all', members: [...kept] }];
  const examples = kept.some((i) => candidates[i]!.scored === false);
  for (const language of [...new Set(kept.map((i) => candidates[i]!.language))].sort()) {
    const members = kept.filter((i) => candidates[i]!.language === language);
    if (members.length >= options.minCell) cells.push({ language, members });
    const scored = examples ? members.filter((i) => candidates[i]!.scored !== false) : [];
    if (scored.length >= options.minCell) cells.push({ language: `${language}/scored`, members: scored });
  }
  const ranked: Array<{ members: number[]; learner: number; excess: number }> = [];
  const above = new Set<number>();
  for (const cell of cells) {
    const chance = cell.members.reduce((s, i) => s + 1 / candidates[i]!.rows.length, 0) / cell.members.length;
    margins.forEach((byLearner, learner) => {
      const found = cell.members.reduce((s, i) => s + byLearner.get(i)!.credit, 0);
      const excess = found / cell.members.length - chance;
      if (excess <= options.maxExcess) return;
      above.add(learner);
      ranked.push({ members: cell.members, learner, excess });
    });
  }
  // A stable sort: among equal excesses, the earlier cell and learner first.
  ranked.sort((a, b) => b.excess - a.excess);
  return { above, ranked };
}

/** The mean of two sets of margins, each a mean over `wa` and `wb` dealings. */
function pooled(a: Margins, wa: number, b: Margins, wb: number): Margins {
  const out: Margins = new Map();
  for (const [learner, byA] of a) {
    const byB = b.get(learner)!;
    out.set(learner, new Map([...byA].map(([i, x]) => [i, { credit: (wa * x.credit + wb * byB.get(i)!.credit) / (wa + wb), margin: (wa * x.margin + wb * byB.get(i)!.margin) / (wa + wb) }])));
  }
  return out;
}

/**
 * The guarded "pick the highest" rules over the drafts kept so far: `blocks(i)` says whether
 * dropping `i` would bring one of them more than `maxExcess` below chance; `drop(i)` updates the
 * running shares.
 */
function guardState(candidates: readonly DropCandidate[], kept: readonly number[], options: DropOptions) {
  const guards = options.guards ?? [];
  let count = kept.length;
  let chanceSum = kept.reduce((s, j) => s + 1 / candidates[j]!.rows.length, 0);
  const shares = guards.map((f) => kept.reduce((s, j) => s + tops(candidates[j]!, f), 0));
  const markers = (options.balanced ?? []).map((f) => markerState(candidates, kept, f, options.maxExcess));
  const ruleCount = candidates[0]?.rules?.length ?? 0;
  const rules = Array.from({ length: ruleCount }, (_, r) => kept.reduce((s, j) => s + candidates[j]!.rules![r]!, 0));
  return {
    blocks(i: number): boolean {
      if (count <= 1) return true;
      const chance = (chanceSum - 1 / candidates[i]!.rows.length) / (count - 1);
      if (markers.some((m) => m.blocks(i))) return true;
      const ruleBlocks = rules.some((share, r) => {
        const now = share / count - chanceSum / count;
        const after = (share - candidates[i]!.rules![r]!) / (count - 1) - chance;
        return Math.abs(after) > options.maxExcess && Math.abs(after) > Math.abs(now);
      });
      if (ruleBlocks) return true;
      return guards.some((f, g) => {
        const own = tops(candidates[i]!, f);
        return own > 0 && (shares[g]! - own) / (count - 1) < chance - options.maxExcess;
      });
    },
    drop(i: number): void {
      count--;
      chanceSum -= 1 / candidates[i]!.rows.length;
      guards.forEach((f, g) => (shares[g]! -= tops(candidates[i]!, f)));
      rules.forEach((_, r) => (rules[r]! -= candidates[i]!.rules![r]!));
      markers.forEach((m) => m.drop(i));
    },
  };
}

/**
 * Per language, the kept drafts offering marker column `f` (some shown option has it set): how
 * many have it on the gold, how many on a distractor only, and the chance share of the former.
 */
function markerState(candidates: readonly DropCandidate[], kept: readonly number[], f: number, maxExcess: number) {
  const on = (i: number): 'gold' | 'distractor' | null => {
    const rows = candidates[i]!.rows;
    if (rows[0]![f]! > 0) return 'gold';
    return rows.some((r) => r[f]! > 0) ? 'distractor' : null;
  };
  const cells = new Map<string, { gold: number; distractor: number; chance: number }>();
  for (const i of kept) {
    const side = on(i);
    if (!side) continue;
    const cell = cells.get(candidates[i]!.language) ?? { gold: 0, distractor: 0, chance: 0 };
    cell[side]++;
    cell.chance += 1 / candidates[i]!.rows.length;
    cells.set(candidates[i]!.language, cell);
  }
  const gap = (gold: number, distractor: number, chance: number) => (gold + distractor === 0 ? 0 : gold / (gold + distractor) - chance / (gold + distractor));
  return {
    blocks(i: number): boolean {
      const side = on(i);
      if (!side) return false;
      const c = cells.get(candidates[i]!.language)!;
      const now = gap(c.gold, c.distractor, c.chance);
      const after = gap(c.gold - (side === 'gold' ? 1 : 0), c.distractor - (side === 'distractor' ? 1 : 0), c.chance - 1 / candidates[i]!.rows.length);
      return Math.abs(after) > maxExcess && Math.abs(after) > Math.abs(now);
    },
    drop(i: number): void {
      const side = on(i);
      if (!side) return;
      const c = cells.get(candidates[i]!.language)!;
      c[side]--;
      c.chance -= 1 / candidates[i]!.rows.length;
    },
  };
}

/** The gold's credit under "pick the highest on column f" (ties share it). */
function tops(c: DropCandidate, f: number): number {
  return argmaxCredit(c.rows.map((r) => r[f]!), 0);
}

/** A margin of 0 is a tie at the top: shared credit, counted as found at half weight. */
function credit(margin: number): number {
  return margin > 0 ? 1 : margin === 0 ? 0.5 : 0;
}

/**
 * Per learner in `learners`, each kept candidate's held-out credit and margin, each the mean over
 * the given `dealings`; null when a fold has no training drafts. A single dealing's estimate moves by
 * several points with which groups share a fold, and the loop stops at the first pass that reads
 * within bounds: judged on one dealing, it stops on a lucky one.
 */
async function heldOutMargins(
  candidates: readonly DropCandidate[],
  kept: readonly number[],
  folds: number,
  learners: readonly number[],
  warm: Map<string, WarmStart>,
  maxTraining: number | undefined,
  dealings: readonly number[],
): Promise<Margins | null> {
  const out: Margins = new Map(learners.map((l) => [l, new Map(kept.map((i) => [i, { credit: 0, margin: 0 }]))]));
  const accumulate = (l: number, test: readonly number[], score: Scorer) => {
    for (const i of test) {
      const scores = score(candidates[i]!.rows);
      const margin = scores[0]! - Math.max(...scores.slice(1));
      const entry = out.get(l)!.get(i)!;
      entry.credit += credit(margin) / dealings.length;
      entry.margin += margin / dealings.length;
    }
  };
  // The trees are fitted on the tree worker (two of every three fits, when there is one) while
  // this thread fits the logistic learners in their warm-start order; each candidate's margins
  // are still summed dealing by dealing, in the same order.
  const trees: Array<{ l: number; test: number[]; score: Promise<Scorer> }> = [];
  for (const dealing of dealings) {
    for (let fold = 0; fold < folds; fold++) {
      const test = kept.filter((i) => candidates[i]!.folds[dealing] === fold);
      if (test.length === 0) continue;
      const others = kept.filter((i) => candidates[i]!.folds[dealing] !== fold);
      const training: TrainingQuestion[] = boundedTraining(others, maxTraining, (i) => candidates[i]!.id).map((i) => ({ rows: candidates[i]!.rows, gold: 0 }));
      if (training.length === 0) return null;
      for (const l of learners) {
        // A (dealing, fold) fitted for the first time starts from the learner's latest fit on
        // another fold: most of their training drafts are the same.
        const key = `${l}/${dealing}/${fold}`;
        const latest = warm.get(`${l}/latest`);
        if (!warm.has(key)) warm.set(key, latest ? { weights: latest.weights, curvature: latest.curvature && { ...latest.curvature } } : {});
        const slot = warm.get(key)!;
        if (DROP_LEARNERS[l]!.name === 'trees') {
          trees.push({ l, test, score: fitTrees(training, trees.length % 3 !== 2) });
          warm.set(`${l}/latest`, slot);
          continue;
        }
        const score = DROP_LEARNERS[l]!.fit(training, 25, slot);
        warm.set(`${l}/latest`, slot);
        accumulate(l, test, score);
      }
    }
  }
  for (const t of trees) accumulate(t.l, t.test, await t.score);
  return out;
}
