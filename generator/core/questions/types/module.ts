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
  | 'no-setup-error'
  | 'no-verified-fix'
  | 'multi-line-call'
  | 'empty-call'
  | 'no-evidence'
  | 'all-evidence';

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
  'no-setup-error': 'no setup, install, build or test command fails with an error observation',
  'no-verified-fix': 'a setup error occurs, but no later successful command fixes it (the error recurs or nothing succeeds)',
  'multi-line-call': 'the next call spans several lines (an edit body), which a one-line completion cannot be scored on',
  'empty-call': 'the call has no arguments (e.g. `think`, whose text the reader keeps as the thought): only its name could be scored',
  'no-evidence': 'no observation contains the final answer, so no observation can be cited as support',
  'all-evidence': 'every observation contains the final answer, so "select all" would be the gold',
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
  mcq?: { choices: string[]; gold: number; sources: string[] };
  completion?: { targets: string[]; metric: 'exact_match' | 'rouge' | 'exact_match+rouge' | 'tool_call'; stop: string[] };
  /**
   * Multi-select kinds: numbered options and every correct index. `completion` then holds the
   * canonical answer text (`1, 3`) so solved examples and ids work as for completions.
   */
  multiSelect?: { choices: string[]; golds: number[] };
  /** One line on why each option is wrong ('' for the gold), keyed by option text: survives letter balancing. */
  reasons?: Record<string, string>;
  /** Tool names the prompt offers the agent (declared, or seen before the anchor). */
  offeredTools?: string[];
  /** The first line of the template's per-question block: where the scored segment starts. */
  questionHeader?: string;
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
  generate(t: Trajectory, ctx: KindContext): KindResult;
}

/** Steps to ask about: the latest eligible one (the longest context) plus a seeded sample. */
export function chooseAnchors(ctx: KindContext, eligible: number[]): number[] {
  if (eligible.length === 0) return [];
  const last = eligible[eligible.length - 1]!;
  const rest = ctx.rng.fork('anchors').shuffle(eligible.slice(0, -1)).slice(0, Math.max(0, ctx.maxPerTrajectory - 1));
  return [...rest, last].sort((a, b) => a - b);
}

export function letters(n: number): string[] {
  return Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i));
}
