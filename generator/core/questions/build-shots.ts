/** The build's few-shot stage: which solved examples a question shows (never its own task, never one showing its options). */
import { sha256 } from '../kernel/stable-json.js';
import type { Trajectory } from '../trajectories/types.js';
import { BUILD_DEFAULTS } from './build-options.js';
import { MIN_COPY_CHARS } from './audit/features.js';
import { STOPWORDS } from './audit/adversary-salience.js';
import { words } from './audit/text.js';
import { questionLanguage } from './build-keys.js';
import { sameTask } from './corpus.js';
import { normaliseChoice } from './normalise.js';
import { shotContext } from './render.js';
import { drStepJson } from './types/dr-plan-mcq.js';
import type { QuestionDraft } from './types/index.js';
import type { StepView } from './views.js';

/**
 * The traj_ids whose questions form the few-shot split, `fraction` of each domain (at most
 * `maxFewshotTrajectories`). The split is drawn per domain, so every domain's kinds have examples to show, and by
 * source group: another run of a few-shot example's issue or research question (another agent's,
 * a translation) is never a test question. The harness shows the few-shot split's first
 * documents to every test question (`emit --shots`); a sibling run among them would show a test
 * question its own answer.
 */
export function fewshotSplit(usable: readonly Trajectory[], groups: ReadonlyMap<Trajectory, string>, seed: string, fraction: number): Set<string> {
  const fewshotIds = new Set<string>();
  for (const domain of [...new Set(usable.map((t) => t.domain))].sort()) {
    const members = usable.filter((t) => t.domain === domain);
    const wanted = fewshotCount(members.length, fraction);
    const byGroup = new Map<string, Trajectory[]>();
    for (const t of members) {
      const group = groups.get(t)!;
      const list = byGroup.get(group);
      if (list) list.push(t);
      else byGroup.set(group, [t]);
    }
    // A group ranks as its best-ranked run: a run alone in its group keeps the rank it has by its own id.
    const rankOf = (t: Trajectory) => sha256(`${seed}\u0000fewshot\u0000${t.traj_id}`);
    const ranked = [...byGroup]
      .map(([group, runs]) => ({ group, runs, rank: runs.map(rankOf).reduce((a, b) => (b < a ? b : a)) }))
      .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.group < b.group ? -1 : 1));
    // Whole groups in rank order until the split has its share; a group larger than what is left
    // is passed over (it would take most of the examples, or the whole domain), smaller ones after it still fit.
    let taken = 0;
    for (const { runs } of ranked) {
      if (taken >= wanted) break;
      if (taken + runs.length > wanted) continue;
      for (const t of runs) fewshotIds.add(t.traj_id);
      taken += runs.length;
    }
  }
  return fewshotIds;
}

function fewshotCount(n: number, fraction: number): number {
  if (n < 3 || fraction <= 0) return 0;
  return Math.min(BUILD_DEFAULTS.maxFewshotTrajectories, Math.max(1, Math.floor(n * fraction)));
}

/**
 * The first `count` examples of the ranked pool that are not from the question's own
 * trajectory, taking one per trajectory before taking a second, so examples vary; for multiple
 * choice, no gold letter twice while another letter can be had.
 */
export function chooseShots<E extends { t: Trajectory; draft: QuestionDraft }>(pool: readonly E[], own: Trajectory, question: QuestionDraft, count: number): E[] {
  // Another run on the same task may take the very same steps, and a borrowed distractor may be
  // this question's gold: either way the example would show the answer in the prompt.
  // Nor may an example show any option of the question: copy detection would eliminate it.
  // Checked against everything the example shows (its goal, kept steps in every form a template
  // renders them, cut observations, options and answer), as the audit's copy detection reads it:
  // an option inside a longer shown text is as eliminable as an equal one.
  const options = [...new Set((question.mcq ? question.mcq.choices : [answerOf(question)]).map(normaliseChoice))].filter((o) => o.length > 0);
  // Nor may it show a word only one option has: an entity of the example's task swapped into a
  // distractor would be told from the gold by that alone (and the gold's own entity the reverse way).
  const singular = question.mcq ? uniqueWords(question.mcq.choices) : new Set<string>();
  const shows = (d: QuestionDraft) => {
    const { text, lines, words: shown } = shotShown(d);
    if (options.some((o) => (o.length >= MIN_COPY_CHARS ? text.includes(o) : lines.has(o)))) return true;
    for (const w of singular) if (shown.has(w)) return true;
    return false;
  };
  const first: E[] = [];
  // Examples whose gold letter one already taken has: shown only when too few others are found.
  // Shots answered B, B, B teach a letter, not a task (97 of 101 prompts of one real build).
  const sameLetter: E[] = [];
  const rest: E[] = [];
  const used = new Set<string>();
  const letters = new Set<number>();
  for (const e of pool) {
    // Once `count` trajectories have given one each, nothing later is taken: the rest of the pool
    // is not checked (most of this function's time was checking what could never be shown).
    if (first.length >= count) break;
    if (sameTask(e.t, own) || shows(e.draft)) continue;
    if (used.has(e.t.traj_id)) {
      rest.push(e);
      continue;
    }
    const gold = e.draft.mcq?.gold;
    if (gold !== undefined && letters.has(gold) && letters.size < e.draft.mcq!.choices.length) {
      sameLetter.push(e);
      continue;
    }
    used.add(e.t.traj_id);
    if (gold !== undefined) letters.add(gold);
    first.push(e);
  }
  // Too few found: first another letter, even from a trajectory already shown (a letter the
  // shots repeat is a cue, a second step of one run is not), then another trajectory, then any.
  const fill = (wanted: (e: E) => boolean) => {
    for (const e of [...rest, ...sameLetter]) {
      if (first.length >= count) return;
      if (first.includes(e) || !wanted(e)) continue;
      first.push(e);
      used.add(e.t.traj_id);
      if (e.draft.mcq) letters.add(e.draft.mcq.gold);
    }
  };
  fill((e) => e.draft.mcq !== undefined && !letters.has(e.draft.mcq.gold));
  fill((e) => !used.has(e.t.traj_id));
  fill(() => true);
  return first;
}

/**
 * The part of a kind's ranked pool a question draws its shots from (same language, same domain),
 * in pool order: each part listed once per kind, on first use, rather than once per question.
 */
export function shotPools<E extends { t: Trajectory }>(pool: readonly E[]): (language: string, domain: string) => E[] {
  const parts = new Map<string, E[]>();
  return (language, domain) => {
    const key = `${language}\u0000${domain}`;
    let part = parts.get(key);
    if (!part) parts.set(key, (part = pool.filter((e) => questionLanguage(e.t) === language && e.t.domain === domain)));
    return part;
  };
}

const shownTexts = new WeakMap<QuestionDraft, { text: string; lines: Set<string>; words: Set<string> }>();

/**
 * Name-like words (capitalised, or with a digit; three characters or more) that exactly one of the
 * choices has: what an entity swap puts in a distractor. Lower-case words are left alone: plans of
 * code tasks differ in file and function names throughout, and almost every example would show one.
 */
function uniqueWords(choices: readonly string[]): Set<string> {
  const count = new Map<string, number>();
  for (const c of choices) {
    const names = (c.match(/[\p{L}\p{N}_]+/gu) ?? []).filter((t) => [...t].length >= 3 && (/^\p{Lu}/u.test(t) || /\d/.test(t))).map((t) => t.toLowerCase());
    for (const w of new Set(names)) count.set(w, (count.get(w) ?? 0) + 1);
  }
  return new Set([...count].filter(([w, n]) => n === 1 && !STOPWORDS.has(w)).map(([w]) => w));
}

/** Normalised text a draft shows when used as a few-shot example, one item per line, and its lines (cached per draft). */
function shotShown(d: QuestionDraft): { text: string; lines: Set<string>; words: Set<string> } {
  const cached = shownTexts.get(d);
  if (cached !== undefined) return cached;
  const items: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') items.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') Object.values(v).forEach(collect);
  };
  const ctx = shotContext(d);
  collect(ctx);
  // The shown answer carries its suffix; the bare targets and choices are what a question could repeat.
  collect(d.mcq?.choices ?? []);
  collect(d.completion?.targets ?? []);
  for (const v of (ctx.history as StepView[] | undefined) ?? []) items.push(drStepJson({ plan: v.plan, action: { tool: v.tool, args: v.args } }));
  const text = items.map(normaliseChoice).join('\n');
  const out = { text, lines: new Set(text.split('\n')), words: new Set(words(text)) };
  shownTexts.set(d, out);
  return out;
}

function answerOf(d: QuestionDraft): string {
  return d.mcq ? d.mcq.choices[d.mcq.gold]! : (d.completion?.targets[0] ?? '');
}
