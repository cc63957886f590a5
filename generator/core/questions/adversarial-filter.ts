/**
 * Adversarial filtering (SWAG/HellaSwag, AFLite) of a kind's MCQ drafts before they are rendered.
 * Each draft keeps more candidate distractors than it shows (`McqDraft.alternatives`).
 * - Fluency targets are dealt across the task (adversarial-fluency.ts); drafts that could only
 *   show the gold as the most fluent option beyond 1/K of the task are dropped.
 * - Over four rounds, the audit's gradient-boosted trees (audit/learners.ts, on the audit's
 *   learned-adversary features) are cross-fitted over folds grouped by source (research question
 *   / issue, else trajectory): the drafts of one fold are re-chosen by a model fitted on the
 *   others. Each draft shows the candidates that place its gold at a seeded target rank under that
 *   model (uniform over 1..K, so "pick the highest score" finds the gold 1/K of the time), with
 *   the combined rule, length and fluency aimed at their targets too, preferring the candidates
 *   the model finds most gold-like.
 * - Then the learners are refitted on the chosen sets, over that dealing of the groups into folds
 *   and two more (one more from LARGE_TASK drafts), and the drafts they still solve are dropped (adversarial-drop.ts). The loop
 *   stops at the first pass within bounds, so over fewer dealings it tends to stop on a lucky
 *   one: another dealing of the same set then reads several points more. The caller counts
 *   every drop as a skip reason.
 */
import { singleSpaced } from '../kernel/whitespace.js';
import { Rng } from '../kernel/rng.js';
import type { Trajectory } from '../trajectories/types.js';
import { dealGroups } from './audit/adversary.js';
import { jaccard } from './audit/features.js';
import { optionTool } from './audit/segment.js';
import { words } from './audit/text.js';
import { type CoreDraft, type CoreResult, type CoreTask, type FilterDropReason, MIN_ITEMS, runFilterCore } from './adversarial-choose.js';
import { FEATURE_COUNT } from './adversarial-options.js';
import { type FeatureInput, type RenderBare, featureInput, featuresOf } from './adversarial-inputs.js';
import type { AdversaryTable } from './audit/adversary-features.js';
import { emptySalienceTable } from './audit/adversary-salience.js';
import type { McqDraft, QuestionDraft } from './types/module.js';

export { MAX_TRAINING, MIN_ITEMS, type FilterDropReason } from './adversarial-choose.js';

export interface FilterItem {
  draft: QuestionDraft;
  /** Source group: the research question / issue, else the trajectory. */
  group: string;
  id: string;
  /** The language the question is asked in: the audit judges each language on its own. */
  language?: string;
  /** False for a few-shot example: the audit judges the scored questions alone (default true). */
  scored?: boolean;
}

export interface FilterOptions {
  /** The draft rendered as its prompt would show it (no shots); without it the goal and history are read as plain text. */
  renderDraft?: RenderBare;
  rounds?: number;
  folds?: number;
  maxExcessPoints?: number;
}

/** A draft as the filter prepared it: the core's numbers, and what `write` puts back into the draft. */
interface Prepared {
  item: FilterItem;
  mcq: McqDraft;
  /**
   * Its `raw` features are read (`readFeatures`) from what `input` renders, before the core runs.
   * Null once posted to a worker, which holds its own copy (`filterByTask`).
   */
  core: CoreDraft | null;
  /**
   * The draft's bare prompt and candidates, rendered when its features are read (and again should
   * a worker fail to read them): a kind's bare prompts are never all held at once. Let go once the
   * features are read.
   */
  input: (() => FeatureInput) | null;
  texts: string[];
  sources: string[];
  reasons: string[];
}

/** Runs the core of each task in this thread, in order. */
export type CoreRunner = (tasks: CoreTask[]) => Promise<CoreResult[]>;

/**
 * Sends the tasks' cores to another thread (adversarial-thread.ts), which runs them in order:
 * resolves to their results, rejects if that thread fails; null when there is none.
 */
export type CorePoster = (tasks: CoreTask[]) => Promise<CoreResult[]> | null;

/**
 * Reads the features of some drafts on another thread: resolves to them in the order given, or
 * is null when there is no thread free to (the caller reads them itself).
 */
export type FeatureRunner = (inputs: FeatureInput[]) => Promise<AdversaryTable[]> | null;

/** The core in this thread. */
export const runInThread: CoreRunner = async (tasks) => {
  const results: CoreResult[] = [];
  for (const task of tasks) results.push(await runFilterCore(task));
  return results;
};

/**
 * Filters one kind's drafts task by task (tasks in name order, each seeded by its name); a
 * draft's source group is its research question / issue, else its trajectory. Resolves once the
 * drafts are prepared (rendered, their features read: a share on `features`' thread when it has
 * one free, the rest here meanwhile) and their numeric cores handed to `post`'s thread (or, when
 * there is none, run here); `dropped` then resolves to the drafts to drop, once the chosen
 * distractors are written into the others.
 */
export async function filterByTask(
  entries: ReadonlyArray<{ draft: QuestionDraft; t: Trajectory; id: string }>,
  options: {
    seed: string;
    taskOf: (t: Trajectory) => string;
    languageOf?: (t: Trajectory) => string;
    /** The research question / issue a trajectory works on (`sourceGroups`); else its instance id, else its id. */
    groupOf?: (t: Trajectory) => string;
    /** False for a trajectory whose questions are few-shot examples (default: every one is scored). */
    scoredOf?: (t: Trajectory) => boolean;
    renderDraft: (draft: QuestionDraft, t: Trajectory) => { prompt: string; questionStart: number | null } | null;
    post?: CorePoster;
    features?: FeatureRunner;
  },
): Promise<{ dropped: Promise<Map<QuestionDraft, FilterDropReason>> }> {
  const byTask = new Map<string, Array<{ draft: QuestionDraft; t: Trajectory; id: string }>>();
  for (const e of entries) {
    const task = options.taskOf(e.t);
    const members = byTask.get(task);
    if (members) members.push(e);
    else byTask.set(task, [e]);
  }
  const makePlans = () => {
    const trajectoryOf = new Map(entries.map((e) => [e.draft, e.t]));
    const renderDraft = (draft: QuestionDraft) => {
      try {
        return options.renderDraft(draft, trajectoryOf.get(draft)!);
      } catch {
        return null; // a template error is reported when the question is rendered for real
      }
    };
    return [...byTask.keys()].sort().map((task) => {
      const items = byTask.get(task)!.map((e) => ({ draft: e.draft, group: options.groupOf?.(e.t) ?? (e.t.task.instance_id || e.t.traj_id), id: e.id, language: options.languageOf?.(e.t), scored: options.scoredOf?.(e.t) ?? true }));
      return planFilter(items, `${options.seed}/${task}`, { renderDraft });
    });
  };
  const tasksOf = (plans: FilterPlan[]) => plans.flatMap((p) => (p.task ? [p.task] : []));
  const plans = makePlans();
  await readFeatures(plans.flatMap((p) => p.prepared), options.features);
  const tasks = tasksOf(plans);
  const posted = tasks.length > 0 ? (options.post?.(tasks) ?? null) : null;
  let finished: Promise<{ plans: FilterPlan[]; results: CoreResult[] }>;
  if (posted) {
    // Posting cloned the cores, so the worker holds its own: this thread lets go of its copy (the
    // feature rows, similarities and salience tables of every draft, held through the kind's whole
    // filter). Should the worker fail, the plans are made again here from the drafts, which
    // nothing has changed yet, and run in this thread.
    for (const plan of plans) {
      if (plan.task) plan.task = { ...plan.task, drafts: [] };
      for (const p of plan.prepared) p.core = null;
    }
    finished = posted.then(
      (results) => ({ plans, results }),
      async () => {
        const again = makePlans();
        await readFeatures(again.flatMap((p) => p.prepared), undefined);
        return { plans: again, results: await runInThread(tasksOf(again)) };
      },
    );
  } else finished = runInThread(tasks).then((results) => ({ plans, results }));
  const dropped = finished.then(({ plans: applied, results }) => {
    const out = new Map<QuestionDraft, FilterDropReason>();
    let next = 0;
    for (const plan of applied) for (const [d, reason] of applyFilter(plan, plan.task ? results[next++]! : null)) out.set(d, reason);
    return out;
  });
  return { dropped };
}

/** Below this many drafts the features are all read here: a worker's round trip would cost more than it saves. */
const SHARED_FEATURES_FROM = 200;

/**
 * Fills every prepared draft's `raw` features: every other one on `features`' thread when it has
 * one free, the rest (or all, when it has none or fails) here meanwhile.
 */
async function readFeatures(prepared: readonly Prepared[], features: FeatureRunner | undefined): Promise<void> {
  const away = prepared.length >= SHARED_FEATURES_FROM && features ? prepared.filter((_, i) => i % 2 === 1) : [];
  // Posting clones the inputs: each is garbage here as soon as it is sent.
  const remote = away.length > 0 ? features!(away.map((p) => p.input!())) : null;
  for (const [i, p] of prepared.entries()) {
    if (remote && i % 2 === 1) continue;
    setFeatures(p, featuresOf(p.input!()));
  }
  if (!remote) return;
  const read = await remote.catch(() => null);
  for (const [j, p] of away.entries()) {
    setFeatures(p, read?.[j] ?? featuresOf(p.input!()));
  }
}

function setFeatures(p: Prepared, table: AdversaryTable): void {
  const raw = new Float64Array(table.rows.length * FEATURE_COUNT);
  table.rows.forEach((row, i) => {
    if (row.length !== FEATURE_COUNT) throw new Error(`a feature row of ${p.item.id} has ${row.length} values, not ${FEATURE_COUNT}`);
    raw.set(row, i * FEATURE_COUNT);
  });
  p.core!.raw = raw;
  p.core!.salience = table.salience;
  p.input = null;
}

/** Returns the drafts to drop, with why; the others' `mcq` are rewritten in place with the chosen distractors. */
export async function adversarialFilter(items: readonly FilterItem[], seed: string, options: FilterOptions = {}): Promise<Map<QuestionDraft, FilterDropReason>> {
  const plan = planFilter(items, seed, options);
  await readFeatures(plan.prepared, undefined);
  return applyFilter(plan, plan.task ? await runFilterCore(plan.task) : null);
}

interface FilterPlan {
  seed: string;
  prepared: Prepared[];
  /** Null when the task is left as drafted. */
  task: CoreTask | null;
}

function planFilter(items: readonly FilterItem[], seed: string, options: FilterOptions): FilterPlan {
  const rounds = options.rounds ?? 4;
  const maxExcess = (options.maxExcessPoints ?? 5) / 100;
  const groups = [...new Set(items.map((i) => i.group))];
  // Fewer drafts than the audit gates on: too few to fit a discriminator on, the drafted choices stay.
  if (groups.length < 2 || items.length < MIN_ITEMS) return { seed, prepared: [], task: null };
  const k = Math.min(options.folds ?? 5, groups.length);
  const foldOf = dealGroups(groups, k, 'af');
  const prepared = items.flatMap((item) => {
    const p = prepare(item, seed, foldOf.get(item.group)!, options.renderDraft);
    return p ? [p] : [];
  });
  return { seed, prepared, task: { seed, groups, k, rounds, maxExcess, drafts: prepared.map((p) => p.core!) } };
}

function applyFilter(plan: FilterPlan, result: CoreResult | null): Map<QuestionDraft, FilterDropReason> {
  const dropped = new Map<QuestionDraft, FilterDropReason>();
  if (!result) return dropped;
  plan.prepared.forEach((p, i) => {
    const reason = result.dropped[i];
    const shown = result.shown[i];
    if (reason) dropped.set(p.item.draft, reason);
    else if (shown) write(p, shown, plan.seed);
  });
  return dropped;
}

function prepare(item: FilterItem, seed: string, fold: number, renderDraft: FilterOptions['renderDraft']): Prepared | null {
  const mcq = item.draft.mcq;
  if (!mcq?.alternatives || mcq.alternatives.length === 0) return null;
  const goldText = mcq.choices[mcq.gold]!;
  const alternativeTexts = new Set(mcq.alternatives.map((a) => a.text));
  const texts = [goldText];
  const sources = ['gold'];
  const reasons = [''];
  mcq.choices.forEach((c, i) => {
    if (i === mcq.gold || alternativeTexts.has(c)) return;
    texts.push(c);
    sources.push(mcq.sources[i]!);
    reasons.push(mcq.reasons?.[i] ?? '');
  });
  const pinned = texts.length - 1;
  for (const a of mcq.alternatives) {
    texts.push(a.text);
    sources.push(a.source);
    reasons.push(a.reason);
  }
  const need = mcq.choices.length - 1 - pinned;
  if (need <= 0) return null;
  const shown = [...Array.from({ length: pinned }, (_, i) => i + 1), ...mcq.choices.flatMap((c, i) => (i !== mcq.gold && alternativeTexts.has(c) ? [texts.indexOf(c, pinned + 1)] : []))];
  // Read by `readFeatures`, on this thread or another.
  const raw = new Float64Array(0);
  const salience = emptySalienceTable();
  const input = () => featureInput(item, texts, renderDraft);
  const sets = texts.map((t) => new Set(words(t)));
  const similarity = new Float64Array(sets.length * sets.length);
  sets.forEach((a, i) => sets.forEach((b, j) => (similarity[i * sets.length + j] = jaccard(a, b))));
  const rng = new Rng(`${seed}/af-rank/${item.id}`);
  const targetRank = rng.int(mcq.choices.length);
  const goldMostSimilar = rng.int(mcq.choices.length) === 0;
  const longerTarget = rng.int(mcq.choices.length);
  const fluentTarget = 0; // dealt across the task by planFluency
  const lengths = texts.map((t) => [...singleSpaced(t).trim()].length);
  const core: CoreDraft = { id: item.id, language: item.language ?? 'en', group: item.group, scored: item.scored ?? true, options: mcq.choices.length, raw, salience, similarity, tools: texts.map(optionTool), pinned, shown, lengths, targetRank, goldMostSimilar, longerTarget, fluentTarget, fold };
  return { item, mcq, core, input, texts, sources, reasons };
}

/** Writes the chosen distractors into the draft, the gold keeping its position, the others in a seeded order. */
function write(p: Prepared, shown: readonly number[], seed: string): void {
  const order = new Rng(`${seed}/af-order/${p.item.id}`).shuffle(shown);
  const choices: string[] = [];
  const sources: string[] = [];
  const reasons: string[] = [];
  for (const j of order) {
    choices.push(p.texts[j]!);
    sources.push(p.sources[j]!);
    reasons.push(p.reasons[j]!);
  }
  const at = p.mcq.gold;
  choices.splice(at, 0, p.texts[0]!);
  sources.splice(at, 0, 'gold');
  reasons.splice(at, 0, '');
  p.mcq.choices = choices;
  p.mcq.sources = sources;
  p.mcq.reasons = reasons;
  delete p.mcq.alternatives;
}
