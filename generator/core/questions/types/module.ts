import type { Rng } from '../../kernel/rng.js';
import type { Domain, Trajectory } from '../../trajectories/types.js';
import type { CorpusIndex } from '../corpus.js';
import type { QuestionKind } from '../types.js';
import type { StepView } from '../views.js';

/** Why a trajectory yields no question of a kind. Counted per kind, never fatal. */
export type SkipReason =
  | 'too-short'
  | 'no-patch'
  | 'no-test-patch'
  | 'no-thoughts'
  | 'no-goal'
  | 'no-answer'
  | 'no-commands'
  | 'too-few-distractors'
  | 'too-few-files'
  | 'repeated-step'
  | 'no-intent'
  | 'edit-body-missing'
  | 'gold-tool-not-offered'
  | 'near-duplicate'
  | 'no-setup-error'
  | 'no-verified-fix'
  | 'multi-line-call'
  | 'empty-call'
  | 'no-evidence'
  | 'all-evidence'
  | 'topic-cue'
  | 'gold-in-prompt'
  | 'finish-unbalanced'
  | 'adversary-solvable';

export const SKIP_REASONS = {
  'too-short': 'fewer steps than the question type needs',
  'no-patch': 'no successful patch (submission or gold patch) to ask about',
  'no-test-patch': 'no test patch is known',
  'no-thoughts': 'no step carries a thought or plan',
  'no-goal': 'the task statement is empty',
  'no-answer': 'no gold answer is known',
  'no-commands': 'no command step to predict',
  'too-few-distractors': 'fewer distinct distractors than choices - 1 after filtering',
  'too-few-files': 'too few candidate files for the choices',
  'repeated-step': 'the step repeats an earlier one, so the gold could be copied from the context',
  'no-intent': "a step whose thought states no intent for the next step (only commentary on the last observation) is not an anchor of a plan question",
  'edit-body-missing': 'an edit whose body the option cannot show: gold and distractors would differ only by line numbers',
  'gold-tool-not-offered': 'the gold uses a tool the prompt does not offer (no declared tools and first used at this step)',
  'near-duplicate': 'the same trajectory prefix and gold as a question already built from an overlapping row',
  'no-setup-error': 'no setup, install, build or test command fails with an error observation',
  'no-verified-fix': 'a setup error occurs, but no later successful command fixes it (the error recurs or nothing succeeds)',
  'multi-line-call': 'the next call spans several lines (an edit body), which a one-line completion cannot be scored on',
  'empty-call': 'the call has no arguments (e.g. `think`, whose text the reader keeps as the thought): only its name could be scored',
  'no-evidence': 'no observation contains the final answer, so no observation can be cited as support',
  'all-evidence': 'every observation contains the final answer, so "select all" would be the gold',
  'topic-cue': 'the gold is the most on-topic option whatever distractors the pool offers (answerable by topic words alone)',
  'gold-in-prompt': 'the prompt (e.g. the issue text) already names the gold verbatim, so it can be copied',
  'finish-unbalanced': 'the gold is the run\'s finish but fewer than K − 1 questions of its task and language that show as many steps are left to offer a premature finish beside it',
  'adversary-solvable': 'the cross-fitted options-only adversary still found the gold after adversarial filtering',
} as const satisfies Record<SkipReason, string>;

export interface KindContext {
  /** Forked per trajectory and kind: order-independent. */
  rng: Rng;
  corpus: CorpusIndex;
  /** Number of options of multiple-choice questions. */
  choices: number;
  /** Most questions of one kind from one trajectory. */
  maxPerTrajectory: number;
  /** Cap on one observation, in characters (head and tail kept). */
  observationChars: number;
  /** How plan questions show earlier steps: one-line plans (APTBench) or thought + action. */
  planHistory: PlanHistory;
}

export type PlanHistory = 'plans' | 'thought-action';

/** Everything about a question except its rendering; the builder renders, budgets and ids it. */
export interface QuestionDraft {
  kind: QuestionKind;
  step: number | null;
  /** Template fields besides history, choices and shots (goal, tools, repo…). */
  fields: Record<string, unknown>;
  /** Earlier steps, oldest first: what truncation drops from the front. */
  history: StepView[];
  answerStem: string;
  /** Appended after the answer in a solved few-shot example (`)`, `]`, a closing fence). */
  answerSuffix: string;
  mcq?: McqDraft;
  /** Tool names the prompt offers at this question's anchor. */
  offeredTools?: string[];
  completion?: { targets: string[]; metric: 'exact_match' | 'rouge' | 'exact_match+rouge' | 'tool_call'; stop: string[] };
  /**
   * Multi-select kinds: numbered options and every correct index. `completion` then holds the
   * canonical answer text (`1, 3`) so solved examples and ids work as for completions.
   */
  multiSelect?: { choices: string[]; golds: number[] };
  /** One line on why each option is wrong ('' for the gold), keyed by option text: survives letter balancing. */
  reasons?: Record<string, string>;
  /** The first line of the template's per-question block: where the scored segment starts. */
  questionHeader?: string;
}

export interface McqDraft {
  choices: string[];
  gold: number;
  /** Aligned with `choices`: `gold` or the operator that made the distractor. */
  sources: string[];
  /** Aligned with `choices`: why each distractor is wrong ('' for the gold). */
  reasons?: string[];
  /**
   * Every candidate distractor the adversarial filter may show instead (those shown included); a
   * shown distractor not listed here is pinned (e.g. a paired premature finish). Dropped once filtered.
   */
  alternatives?: Array<{ text: string; source: string; reason: string }>;
  /**
   * The run's own finish, which may stand in for a distractor as a premature finish (finish
   * allowed here: the answer is not in the prompt yet). The build decides where it is shown
   * (finish-pairs.ts) and drops it from every draft.
   */
  finishOption?: { text: string; source: string; reason: string };
  /**
   * Set when the distractors are all one step with another entity in the same place (the gold's,
   * or a re-check's beside a finish gold), with `echo`, how closely the options repeat a step the
   * prompt shows (step-echo.ts). A premature finish stands in only among drafts of the same style
   * and about the same echo as its finish gold's (finish-pairs.ts), which drops this from every draft.
   */
  swap?: { echo: number };
}

export interface KindResult {
  drafts: QuestionDraft[];
  skipped: SkipReason[];
}

export interface QuestionTypeModule {
  kind: QuestionKind;
  format: 'mcq' | 'completion' | 'multi_select';
  /** Trajectory domains the kind applies to; others are not counted as skipped. */
  domains: readonly Domain[];
  /** Template file (without `.hbs`) under templates/prompts. */
  template: string;
  /** Next-step kinds: a finish gold is paired with premature finishes offered by other questions (finish-pairs.ts). */
  pairsFinishes?: boolean;
  generate(t: Trajectory, ctx: KindContext): KindResult;
}

/** Steps to ask about: the latest eligible one (the longest context) plus a seeded sample. */
export function chooseAnchors(ctx: KindContext, eligible: number[]): number[] {
  return anchorOrder(ctx, eligible).slice(0, ctx.maxPerTrajectory).sort((a, b) => a - b);
}

/**
 * Every eligible step in the order anchors are tried: the latest first, then a seeded
 * shuffle, so a kind that must skip an anchor can take the next one and still stay
 * independent of every other trajectory.
 */
export function anchorOrder(ctx: KindContext, eligible: number[]): number[] {
  if (eligible.length === 0) return [];
  const last = eligible[eligible.length - 1]!;
  return [last, ...ctx.rng.fork('anchors').shuffle(eligible.slice(0, -1))];
}

export function letters(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i));
}
