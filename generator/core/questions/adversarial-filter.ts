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
 *   and a second one, and the drafts they still solve are dropped (adversarial-drop.ts). The caller counts every drop as a skip reason.
 */
import { Rng } from '../kernel/rng.js';
import type { Trajectory } from '../trajectories/types.js';
import { ADVERSARY_FEATURES, adversaryFeatures } from './audit/adversary-features.js';
import { dealGroups } from './audit/adversary.js';
import { jaccard } from './audit/features.js';
import { optionTool, questionSegment } from './audit/segment.js';
import { words } from './audit/text.js';
import { ADVERSARY_LEARNERS, type Scorer } from './audit/learners.js';
import { boundedTraining, dropPredictable } from './adversarial-drop.js';
import { type FluencyRange, fluencyRange, planFluency } from './adversarial-fluency.js';
import type { McqDraft, QuestionDraft } from './types/module.js';
import type { McqQuestion } from './types.js';

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

export interface FilterItem {
  draft: QuestionDraft;
  /** Source group: the research question / issue, else the trajectory. */
  group: string;
  id: string;
  /** The language the question is asked in: the audit judges each language on its own. */
  language?: string;
}

export interface FilterOptions {
  /** The draft rendered as its prompt would show it (no shots); without it the goal and history are read as plain text. */
  renderDraft?: (draft: QuestionDraft) => { prompt: string; questionStart: number | null } | null;
  rounds?: number;
  folds?: number;
  maxExcessPoints?: number;
}

interface Prepared {
  item: FilterItem;
  mcq: McqDraft;
  /** Raw feature rows: 0 the gold, then the pinned distractors, then the alternatives. */
  raw: number[][];
  /** Word-set Jaccard between candidates, and each candidate's tool: the features that depend on which options are shown. */
  similarity: number[][];
  tools: Array<string | null>;
  pinned: number;
  /** Indices into `rows` of the distractors currently shown. */
  shown: number[];
  texts: string[];
  /** Each candidate's length in code points, whitespace collapsed (the audit's length rule). */
  lengths: number[];
  sources: string[];
  reasons: string[];
  targetRank: number;
  /** Seeded coin (heads 1/K): whether the gold should be the audit's combined-rule pick. */
  goldMostSimilar: boolean;
  /** Seeded target (uniform over 0..K−1) for how many shown options are at least as long as the gold: length is a rule of its own, read both ways. */
  longerTarget: number;
  /** How many shown distractors should read at least as fluently as the gold under the context's word model (adversarial-fluency.ts). */
  fluentTarget: number;
  fold: number;
}

/**
 * Filters one kind's drafts task by task (tasks in name order, each seeded by its name); a
 * draft's source group is its research question / issue, else its trajectory. Returns the drafts to drop.
 */
export function filterByTask(
  entries: ReadonlyArray<{ draft: QuestionDraft; t: Trajectory; id: string }>,
  options: { seed: string; taskOf: (t: Trajectory) => string; languageOf?: (t: Trajectory) => string; renderDraft: (draft: QuestionDraft, t: Trajectory) => { prompt: string; questionStart: number | null } | null },
): Map<QuestionDraft, FilterDropReason> {
  const byTask = new Map<string, Array<{ draft: QuestionDraft; t: Trajectory; id: string }>>();
  for (const e of entries) {
    const task = options.taskOf(e.t);
    const members = byTask.get(task);
    if (members) members.push(e);
    else byTask.set(task, [e]);
  }
  const trajectoryOf = new Map(entries.map((e) => [e.draft, e.t]));
  const renderDraft = (draft: QuestionDraft) => {
    try {
      return options.renderDraft(draft, trajectoryOf.get(draft)!);
    } catch {
      return null; // a template error is reported when the question is rendered for real
    }
  };
  const dropped = new Map<QuestionDraft, FilterDropReason>();
  for (const task of [...byTask.keys()].sort()) {
    const items = byTask.get(task)!.map((e) => ({ draft: e.draft, group: e.t.task.instance_id || e.t.traj_id, id: e.id, language: options.languageOf?.(e.t) }));
    for (const [d, reason] of adversarialFilter(items, `${options.seed}/${task}`, { renderDraft })) dropped.set(d, reason);
  }
  return dropped;
}

/** Why the filter drops a draft: its gold is still found, or only the most fluent option could be gold and the task has enough of those. */
export type FilterDropReason = 'adversary-solvable' | 'fluency-unbalanced';

/** Returns the drafts to drop, with why; the others' `mcq` are rewritten in place with the chosen distractors. */
export function adversarialFilter(items: readonly FilterItem[], seed: string, options: FilterOptions = {}): Map<QuestionDraft, FilterDropReason> {
  const rounds = options.rounds ?? 4;
  const maxExcess = (options.maxExcessPoints ?? 5) / 100;
  const dropped = new Map<QuestionDraft, FilterDropReason>();
  const groups = [...new Set(items.map((i) => i.group))];
  // Fewer drafts than the audit gates on: too few to fit a discriminator on, the drafted choices stay.
  if (groups.length < 2 || items.length < MIN_ITEMS) return dropped;
  const k = Math.min(options.folds ?? 5, groups.length);
  const foldOf = dealGroups(groups, k, 'af');
  const drafted = items.flatMap((item) => {
    const p = prepare(item, seed, foldOf.get(item.group)!, options.renderDraft);
    return p ? [p] : [];
  });
  const fluency = planFluency(drafted.map(fluencyRangeOf), seed);
  const prepared = drafted.filter((p, i) => {
    if (fluency.dropped.has(i)) {
      dropped.set(p.item.draft, 'fluency-unbalanced');
      return false;
    }
    p.fluentTarget = fluency.targets[i]!;
    return true;
  });
  if (prepared.length < 2 * k) return dropped;
  for (let round = 0; round < rounds; round++) {
    const models = Array.from({ length: k }, (_, fold) => fitOn(prepared.filter((p) => p.fold !== fold)));
    for (const p of prepared) choose(p, models[p.fold]!);
  }
  // AFLite's last step: every learner refitted on the chosen sets; drop what they still find.
  const second = dealGroups(groups, k, 'af/2');
  const candidates = prepared.map((p) => ({ id: p.item.id, folds: [p.fold, second.get(p.item.group)!], language: p.item.language ?? 'en', rows: rowsOf(p, p.shown) }));
  for (const i of dropPredictable(candidates, { folds: k, maxExcess, minCell: MIN_ITEMS, guards: [LENGTH, FLUENCY, SIMILARITY], maxTraining: MAX_TRAINING })) dropped.set(prepared[i]!.item.draft, 'adversary-solvable');
  for (const p of prepared) if (!dropped.has(p.item.draft)) write(p, seed);
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
  const raw = adversaryFeatures(pseudoQuestion(item, texts, renderDraft));
  const sets = texts.map((t) => new Set(words(t)));
  const similarity = sets.map((a) => sets.map((b) => jaccard(a, b)));
  const rng = new Rng(`${seed}/af-rank/${item.id}`);
  const targetRank = rng.int(mcq.choices.length);
  const goldMostSimilar = rng.int(mcq.choices.length) === 0;
  const longerTarget = rng.int(mcq.choices.length);
  const fluentTarget = 0; // dealt across the task by planFluency
  const lengths = texts.map((t) => [...t.replace(/\s+/g, ' ').trim()].length);
  return { item, mcq, raw, similarity, tools: texts.map(optionTool), pinned, shown, texts, lengths, sources, reasons, targetRank, goldMostSimilar, longerTarget, fluentTarget, fold };
}

/**
 * The draft as the adversary reads it: the question segment of its rendered prompt (the audit's
 * history: choice and tool lists cut out), or its goal and history as plain text, then every candidate.
 */
function pseudoQuestion(item: FilterItem, texts: string[], renderDraft: FilterOptions['renderDraft']): McqQuestion {
  const d = item.draft;
  const rendered = renderDraft?.(d);
  let history: string;
  if (rendered && d.mcq) {
    history = questionSegment(bare(item, rendered.prompt, rendered.questionStart ?? 0, d.mcq.choices)).trajectory;
  } else {
    const goal = typeof d.fields.goal === 'string' ? d.fields.goal : '';
    history = `${goal}\n${d.history.map((h) => `${h.plan}\n${h.action}\n${h.observation ?? ''}`).join('\n')}`;
  }
  return bare(item, `${history}\n${texts.map((t, i) => `(${i}) ${t}`).join('\n')}\n`, 0, texts);
}

function bare(item: FilterItem, prompt: string, questionStart: number, choices: string[]): McqQuestion {
  const d = item.draft;
  return {
    schema_version: 'question/1',
    id: item.id,
    kind: d.kind,
    task: d.kind,
    format: 'mcq',
    prompt,
    prompt_tokens: 0,
    length_bucket: '<=4K',
    truncated: false,
    question_start: questionStart,
    provenance: { traj_id: item.group, source_path: '', step: d.step, framework: '' },
    build: { seed: '', template: '', offered_tools: d.offeredTools },
    choices,
    gold: 0,
    answer_stem: '',
  };
}

const SIMILARITY = ADVERSARY_FEATURES.indexOf('similarity');
const MAX_SIMILARITY = ADVERSARY_FEATURES.indexOf('max_similarity');
const TOOL_SHARED = ADVERSARY_FEATURES.indexOf('tool_shared_by_options');

/** Raw feature rows of the options [gold, ...shown] as the audit would see them: set-dependent features recomputed for this set. */
function rowsOf(p: Prepared, shown: readonly number[]): number[][] {
  const options = [0, ...shown];
  return options.map((i) => {
    const row = [...p.raw[i]!];
    let sim = 0;
    let maxSim = 0;
    let sameTool = 0;
    for (const j of options) {
      if (j === i) continue;
      sim += p.similarity[i]![j]!;
      maxSim = Math.max(maxSim, p.similarity[i]![j]!);
      if (p.tools[i] !== null && p.tools[j] === p.tools[i]) sameTool++;
    }
    row[SIMILARITY] = sim / (options.length - 1);
    row[MAX_SIMILARITY] = maxSim;
    row[TOOL_SHARED] = sameTool;
    return row;
  });
}

/** The discriminator the distractors are chosen against: the audit's gradient-boosted trees, the learner that found most on real builds. */
const FILTER_LEARNER = ADVERSARY_LEARNERS.find((l) => l.name === 'trees')!;

function fitOn(training: readonly Prepared[]): Scorer {
  const bounded = boundedTraining(training.map((_, i) => i), MAX_TRAINING, (i) => training[i]!.item.id).map((i) => training[i]!);
  return FILTER_LEARNER.fit(bounded.map((p) => ({ rows: rowsOf(p, p.shown), gold: 0 })));
}

/** Subsets of size `need` of `items`, lexicographic; at most `limit`. */
function* subsets(items: readonly number[], need: number, limit: number): Generator<number[]> {
  const idx = Array.from({ length: need }, (_, i) => i);
  if (need > items.length) return;
  for (let produced = 0; produced < limit; produced++) {
    yield idx.map((i) => items[i]!);
    let i = need - 1;
    while (i >= 0 && idx[i] === items.length - need + i) i--;
    if (i < 0) return;
    idx[i]!++;
    for (let j = i + 1; j < need; j++) idx[j] = idx[j - 1]! + 1;
  }
}

/**
 * Shows the pinned distractors and the alternatives that put the gold at its target rank under
 * the model (as near as the candidates allow), and among those the set whose distractors the
 * model finds most gold-like (smallest softmax share of the gold).
 */
function choose(p: Prepared, model: Scorer): void {
  const pinned = Array.from({ length: p.pinned }, (_, i) => i + 1);
  const need = p.mcq.choices.length - 1 - p.pinned;
  const alternatives = Array.from({ length: p.texts.length - 1 - p.pinned }, (_, i) => i + 1 + p.pinned);
  let best: { shown: number[]; miss: number; share: number } | null = null;
  for (const extra of subsets(alternatives, need, 2000)) {
    const shown = [...pinned, ...extra];
    // The audit's combined rule picks the option most similar to the others: the gold may be it
    // only as often as chance, and that gate comes before the rank.
    const combined = 5 * Math.abs(combinedCredit(p, shown) - (p.goldMostSimilar ? 1 : 0));
    const longer = 2 * Math.abs(longerThanGold(p, shown) - p.longerTarget);
    const fluent = 2 * Math.abs(atLeastAsFluent(p, shown) - p.fluentTarget);
    // The rank term is at least 0 and rounding is monotone, so this sum is a lower bound on the
    // miss: a set that cannot reach the best miss so far is not scored.
    if (best && combined + longer + fluent > best.miss) continue;
    const scores = model(rowsOf(p, shown));
    const above = scores.slice(1).filter((v) => v > scores[0]!).length;
    const miss = Math.abs(above - p.targetRank) + combined + longer + fluent;
    const top = Math.max(...scores);
    const sum = scores.reduce((s, v) => s + Math.exp(v - top), 0);
    const share = Math.exp(scores[0]! - top) / sum;
    if (!best || miss < best.miss || (miss === best.miss && share < best.share - 1e-12)) best = { shown, miss, share };
  }
  if (best) p.shown = best.shown;
}

const RELEVANCE = ADVERSARY_FEATURES.indexOf('history_overlap');
const LENGTH = ADVERSARY_FEATURES.indexOf('log_chars');

/** The audit's combined rule on these options (copies and off-tool options are never shown): most similar, then most relevant, then longest; the gold's share of the ties. */
function combinedCredit(p: Prepared, shown: readonly number[]): number {
  const options = [0, ...shown];
  let candidates = options;
  const keep = (score: (i: number) => number) => {
    const best = Math.max(...candidates.map(score));
    candidates = candidates.filter((i) => score(i) === best);
  };
  keep((i) => options.reduce((s, j) => s + (j === i ? 0 : p.similarity[i]![j]!), 0) / (options.length - 1));
  keep((i) => p.raw[i]![RELEVANCE]!);
  keep((i) => p.raw[i]![LENGTH]!);
  return candidates.includes(0) ? 1 / candidates.length : 0;
}

/** How many of the shown distractors are at least as long as the gold (whitespace collapsed; a tie shares the longest-option credit). */
function longerThanGold(p: Prepared, shown: readonly number[]): number {
  const gold = p.lengths[0]!;
  return shown.filter((i) => p.lengths[i]! >= gold).length;
}

const FLUENCY = ADVERSARY_FEATURES.indexOf('bigram_fluency');

/** The fewest and most shown distractors at least as fluent as the gold that this draft's candidates allow. */
function fluencyRangeOf(p: Prepared): FluencyRange {
  const f = (i: number) => p.raw[i]![FLUENCY]!;
  const pinned = Array.from({ length: p.pinned }, (_, i) => f(i + 1));
  const alternatives = Array.from({ length: p.texts.length - 1 - p.pinned }, (_, i) => f(i + 1 + p.pinned));
  const need = p.mcq.choices.length - 1 - p.pinned;
  return { id: p.item.id, language: p.item.language ?? 'en', options: p.mcq.choices.length, ...fluencyRange(f(0), pinned, alternatives, need) };
}

/**
 * How many shown distractors read at least as fluently as the gold under the context's bigram
 * model. A real next step writes its query in the words and word order the context already uses,
 * so "pick the most fluent option" is the strongest single surface cue on real builds; aimed at
 * the dealt target, it finds the gold 1/K of the time.
 */
function atLeastAsFluent(p: Prepared, shown: readonly number[]): number {
  const gold = p.raw[0]![FLUENCY]!;
  return shown.filter((i) => p.raw[i]![FLUENCY]! >= gold).length;
}

/** Writes the chosen distractors into the draft, the gold keeping its position, the others in a seeded order. */
function write(p: Prepared, seed: string): void {
  const order = new Rng(`${seed}/af-order/${p.item.id}`).shuffle(p.shown);
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
