import type { Domain } from '../trajectories/types.js';
import type { QuestionKind } from './types.js';

/**
 * Every question kind with its harness task name and one-line description. `satisfies`
 * makes a kind added to the union without a row here a compile error.
 */
export const QUESTION_KIND_INFO = {
  plan_mcq: { task: 'aptpace_swe_plan_mcq', domain: 'swe', ctfTask: 'aptpace_ctf_plan_mcq', title: 'Planning MCQ: pick the correct next-step plan' },
  next_action_tc: { task: 'aptpace_swe_next_action', domain: 'swe', ctfTask: 'aptpace_ctf_next_action', title: 'Next action: write the next command (exact match on the normalised first line)' },
  next_action_mcq: { task: 'aptpace_swe_next_action_mcq', domain: 'swe', ctfTask: 'aptpace_ctf_next_action_mcq', title: 'Next action MCQ: pick the next command' },
  bug_locate_mcq: { task: 'aptpace_swe_bug_locate_mcq', domain: 'swe', title: 'Bug localisation MCQ: which file the successful patch changes' },
  fix_patch_mcq: { task: 'aptpace_swe_fix_patch_mcq', domain: 'swe', title: 'Fix-patch MCQ: the successful patch among perturbed patches' },
  test_patch_mcq: { task: 'aptpace_swe_test_patch_mcq', domain: 'swe', title: 'Test-patch MCQ: the test patch among perturbed ones' },
  env_setup_plan_mcq: { task: 'aptpace_env_setup_plan_mcq', domain: 'env_setup', title: 'Environment setup: pick the next-step plan' },
  env_setup_action_tc: { task: 'aptpace_env_setup_action', domain: 'env_setup', title: 'Environment setup: write the next command' },
  dr_plan_mcq: { task: 'aptpace_dr_plan_mcq', domain: 'deep_research', title: 'Deep research: pick the next-step plan' },
  dr_answer_tc: { task: 'aptpace_dr_answer', domain: 'deep_research', title: 'Deep research: write the final answer (exact match + ROUGE)' },
  env_setup_error_mcq: { task: 'aptpace_env_setup_error_mcq', domain: 'env_setup', title: 'Environment setup error: pick the fix for the observed setup error' },
  issue_fix_tool_call_tc: { task: 'aptpace_swe_tool_call', domain: 'swe', title: 'Issue fix: write the next tool call in the agent\'s own format (normalised exact match of name and arguments)' },
  dr_citation_ms: { task: 'aptpace_dr_citation_ms', domain: 'deep_research', optIn: true, title: 'Deep research: select every observation that supports the final answer (set match + F1)' },
} as const satisfies Record<QuestionKind, KindInfo>;

interface KindInfo {
  task: string;
  domain: string;
  /**
   * The task of this kind's questions from capture-the-flag runs. A CTF question is scored in
   * its own task (and the suite's ctf subgroup), never averaged into the SWE task of the kind.
   */
  ctfTask?: string;
  title: string;
  /**
   * Built only when named in `--kinds`. `dr_citation_ms` is: its gold ("the observations whose
   * text states the answer") is decided by a string match, not by judged support, and its
   * Chinese questions are too few in any corpus we have to gate them on their own.
   */
  optIn?: boolean;
}

/** The harness task of a kind's questions from a trajectory of `domain`. */
export function taskFor(kind: QuestionKind, domain: Domain): string {
  const info: KindInfo = QUESTION_KIND_INFO[kind];
  return domain === 'ctf' && info.ctfTask ? info.ctfTask : info.task;
}

/**
 * True when `task` is the CTF task of `kind` (or a name built on it, such as `…_zh`): the
 * emitter files it under the ctf subgroup.
 */
export function isCtfTask(kind: string, task: string): boolean {
  const info = (QUESTION_KIND_INFO as Record<string, KindInfo | undefined>)[kind];
  return info?.ctfTask !== undefined && task.startsWith(info.ctfTask);
}

export const QUESTION_KINDS = Object.keys(QUESTION_KIND_INFO) as QuestionKind[];

export function isQuestionKind(value: string): value is QuestionKind {
  return Object.hasOwn(QUESTION_KIND_INFO, value);
}

/** The kinds a build makes when none are named: every kind but the opt-in ones. */
export const DEFAULT_KINDS = QUESTION_KINDS.filter((k) => !(QUESTION_KIND_INFO[k] as KindInfo).optIn);
