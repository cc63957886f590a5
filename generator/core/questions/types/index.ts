import type { QuestionKind } from '../types.js';
import { bugLocateMcq } from './bug-locate-mcq.js';
import { drAnswerTc } from './dr-answer-tc.js';
import { drCitationMs } from './dr-citation-ms.js';
import { drPlanMcq } from './dr-plan-mcq.js';
import { envSetupActionTc } from './env-setup-action-tc.js';
import { envSetupErrorMcq } from './env-setup-error-mcq.js';
import { envSetupPlanMcq } from './env-setup-plan-mcq.js';
import { fixPatchMcq } from './fix-patch-mcq.js';
import { issueFixToolCallTc } from './issue-fix-tool-call-tc.js';
import type { QuestionTypeModule } from './module.js';
import { nextActionMcq } from './next-action-mcq.js';
import { nextActionTc } from './next-action-tc.js';
import { planMcq } from './plan-mcq.js';
import { testPatchMcq } from './test-patch-mcq.js';

/** Every question type, in build and output order. */
export const QUESTION_TYPES = {
  plan_mcq: planMcq,
  next_action_tc: nextActionTc,
  next_action_mcq: nextActionMcq,
  bug_locate_mcq: bugLocateMcq,
  fix_patch_mcq: fixPatchMcq,
  test_patch_mcq: testPatchMcq,
  env_setup_plan_mcq: envSetupPlanMcq,
  env_setup_action_tc: envSetupActionTc,
  dr_plan_mcq: drPlanMcq,
  dr_answer_tc: drAnswerTc,
  env_setup_error_mcq: envSetupErrorMcq,
  issue_fix_tool_call_tc: issueFixToolCallTc,
  dr_citation_ms: drCitationMs,
} as const satisfies Record<QuestionKind, QuestionTypeModule>;

export type { QuestionTypeModule, QuestionDraft, KindContext, SkipReason } from './module.js';
export { SKIP_REASONS } from './module.js';
