/**
 * The goal and the earlier steps of a question segment, as the learned adversary compares
 * options to them. Every template writes the history as "Step N: <step>" (步骤 N：) followed by
 * its observation, so the segment before the first step is the goal, and each step is the text
 * from its mark to its observation. A real next step tends to continue the last one (the same
 * search refined, the page a search found): an outside adversary found the gold as "the option
 * most like an earlier step" and "the option whose own words the goal or the earlier steps
 * show" where the shown set hid neither, so the filter must see them too.
 */
import { stableStringify } from '../../kernel/stable-json.js';
import { jaccard } from './features.js';
import { callArguments, contentText, executionOf, parseJsonObject } from './json-step.js';
import { words } from './text.js';

/** A step's mark in a whitespace-collapsed, NFKC segment ("Step 3:", "步骤 3:"). */
const STEP_MARK = /(?:Step|步骤)\s*\d+\s*[:：]/g;
/** Where a step's observation starts (whitespace collapsed, NFKC). */
const OBSERVATION_MARK = /(?:Observation|Output|观察|输出)\s*[:：]/g;
/** A goal longer than this is cut: a segment without step marks has no goal of its own. */
const GOAL_CHARS = 600;

export interface EarlierSteps {
  /** The words of the goal: the segment before its first step. */
  goal: ReadonlySet<string>;
  /** How many words the goal has: the segment's words from this one on are the trajectory's steps and observations. */
  goalWords: number;
  /** The words of the earlier steps themselves (plans and calls, not their observations). */
  stepWords: ReadonlySet<string>;
  /** Each earlier step's character trigrams (of what it says: `contentText`), lower case. */
  stepGrams: ReadonlyArray<ReadonlySet<string>>;
  /** Each earlier step's call (`callOf`). */
  calls: ReadonlySet<string>;
}

/** The goal and earlier steps of a whitespace-collapsed question segment. */
export function earlierSteps(segment: string): EarlierSteps {
  const marks = [...segment.matchAll(STEP_MARK)];
  const goalEnd = marks.length > 0 ? Math.min(marks[0]!.index, GOAL_CHARS) : GOAL_CHARS;
  const observations = [...segment.matchAll(OBSERVATION_MARK)].map((m) => m.index);
  const steps = marks.map((m, k) => {
    const from = m.index + m[0].length;
    const next = k + 1 < marks.length ? marks[k + 1]!.index : segment.length;
    const observed = observations.find((o) => o >= from && o < next);
    return segment.slice(from, observed ?? next).trim();
  });
  const contents = steps.map(contentText);
  const stepWords = new Set<string>();
  for (const s of contents) for (const w of words(s)) stepWords.add(w);
  const calls = new Set<string>();
  for (const s of steps) calls.add(callOf(s));
  const goal = words(segment.slice(0, goalEnd));
  return { goal: new Set(goal), goalWords: goal.length, stepWords, stepGrams: contents.map(trigrams), calls };
}

/** What a step calls: a JSON step's tool and arguments (key order aside), else its text. */
export function callOf(text: string): string {
  const parsed = parseJsonObject(text);
  const execution = parsed ? executionOf(parsed) : null;
  if (!parsed || !execution) return text.trim();
  return `${String(execution.name ?? execution.tool ?? '')}\u0000${stableStringify(callArguments(parsed) ?? null)}`;
}

/** The lower-case character trigrams of a text. */
export function trigrams(text: string): Set<string> {
  const lower = text.toLowerCase();
  const out = new Set<string>();
  for (let i = 0; i + 3 <= lower.length; i++) out.add(lower.slice(i, i + 3));
  return out;
}

/** The largest trigram Jaccard similarity of `grams` to one of `others` (0 when there is none). */
export function nearestStep(grams: ReadonlySet<string>, others: ReadonlyArray<ReadonlySet<string>>): number {
  let best = 0;
  for (const other of others) best = Math.max(best, jaccard(grams, other));
  return best;
}
