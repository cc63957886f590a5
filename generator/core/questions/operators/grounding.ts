import type { Trajectory } from '../../trajectories/types.js';
import { words } from '../audit/text.js';
import type { StepCandidate } from './types.js';

/**
 * How well a candidate step is grounded in what the agent had seen before the anchor: the
 * share of its argument words that the goal and earlier steps show, and the share of its
 * word pairs that occur there in the same order. A real next step searches with words the
 * context already holds and writes them in its order; a distractor borrowed from another task
 * or with an entity swapped in does neither unless it is chosen to, and then only
 * understanding the step tells it from the gold.
 */
export interface PriorText {
  words: ReadonlySet<string>;
  /** Adjacent word pairs, `a\u0000b`. */
  pairs: ReadonlySet<string>;
}

/** Characters of one observation read (its head, where search results and page text begin). */
const OBSERVATION_CHARS = 8000;

/**
 * The words and pairs of each step of the trajectory asked about last. One trajectory only: its
 * anchors are drafted one after another, and a cache over every trajectory would hold a word
 * list per step of the whole corpus for the whole build (gigabytes at 10,000 trajectories).
 */
let last: { t: Trajectory; steps: Array<{ words: string[]; pairs: string[] }> } | null = null;

function stepTexts(t: Trajectory): Array<{ words: string[]; pairs: string[] }> {
  if (last?.t === t) return last.steps;
  const steps = t.steps.map((s) => {
    const list = words([s.plan ?? '', s.thought ?? '', s.action.text, JSON.stringify(s.action.args), (s.observation ?? '').slice(0, OBSERVATION_CHARS)].join('\n'));
    return { words: list, pairs: pairsOf(list) };
  });
  last = { t, steps };
  return steps;
}

function pairsOf(list: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < list.length; i++) out.push(`${list[i - 1]}\u0000${list[i]}`);
  return out;
}

/** The last anchor's prior text: the operators of one anchor each ask for it in turn. */
let lastPrior: { t: Trajectory; position: number; text: PriorText } | null = null;

/** The words and word pairs of the goal and of every step before `position` (plan, thought, action, observation head); callers only read them. */
export function priorText(t: Trajectory, position: number): PriorText {
  if (lastPrior?.t === t && lastPrior.position === position) return lastPrior.text;
  lastPrior = { t, position, text: readPriorText(t, position) };
  return lastPrior.text;
}

function readPriorText(t: Trajectory, position: number): PriorText {
  const goal = words(t.task.goal);
  const all = new Set(goal);
  const pairs = new Set(pairsOf(goal));
  for (const s of stepTexts(t).slice(0, position)) {
    for (const w of s.words) all.add(w);
    for (const p of s.pairs) pairs.add(p);
  }
  return { words: all, pairs };
}

/** Text of a candidate's arguments: its args object, else its action text after the command word. */
export function argumentText(c: StepCandidate): string {
  const args = c.action.args && Object.keys(c.action.args).length > 0 ? Object.values(c.action.args).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ') : '';
  return args || c.action.text.split(/\s+/).slice(1).join(' ');
}

/** Share of the distinct argument words the prior text shows (1 for a step without arguments). */
export function argumentGrounding(c: StepCandidate, prior: PriorText): number {
  const own = new Set(words(argumentText(c)));
  if (own.size === 0) return 1;
  let seen = 0;
  for (const w of own) if (prior.words.has(w)) seen++;
  return seen / own.size;
}

/** Share of a text's adjacent word pairs that the prior text shows in that order (1 for fewer than two words). */
export function pairFluency(text: string, prior: PriorText): number {
  const pairs = pairsOf(words(text));
  if (pairs.length === 0) return 1;
  let seen = 0;
  for (const p of pairs) if (prior.pairs.has(p)) seen++;
  return seen / pairs.length;
}

/** Plan and action of a candidate as one text, for fluency. */
export function candidateText(c: StepCandidate): string {
  return `${c.plan}\n${argumentText(c)}`;
}
