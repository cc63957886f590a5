import { borrowedPatch } from './borrowed-patch.js';
import { borrowedStep } from './borrowed-step.js';
import { invertedCondition } from './inverted-condition.js';
import { offByOne } from './off-by-one.js';
import { offTargetArgument } from './off-target-argument.js';
import { offTargetPath } from './off-target-path.js';
import { otherPosition } from './other-position.js';
import { prematureSubmit } from './premature-submit.js';
import { revertedLine } from './reverted-line.js';
import type { PatchOperator, StepOperator } from './types.js';
import { wrongFile } from './wrong-file.js';
import { wrongHunk } from './wrong-hunk.js';
import { wrongTool } from './wrong-tool.js';

export type StepOperatorName = 'off_target_path' | 'off_target_argument' | 'wrong_tool' | 'premature_submit' | 'borrowed_step' | 'other_position';
export type PatchOperatorName = 'wrong_hunk' | 'wrong_file' | 'inverted_condition' | 'off_by_one' | 'reverted_line' | 'borrowed_patch';

/** Step operators in the order ties are broken when choosing distractors. */
export const STEP_OPERATORS = {
  off_target_path: offTargetPath,
  off_target_argument: offTargetArgument,
  wrong_tool: wrongTool,
  premature_submit: prematureSubmit,
  other_position: otherPosition,
  borrowed_step: borrowedStep,
} as const satisfies Record<StepOperatorName, StepOperator>;

export const PATCH_OPERATORS = {
  wrong_hunk: wrongHunk,
  wrong_file: wrongFile,
  inverted_condition: invertedCondition,
  off_by_one: offByOne,
  reverted_line: revertedLine,
  borrowed_patch: borrowedPatch,
} as const satisfies Record<PatchOperatorName, PatchOperator>;

export type { PatchOperator, StepOperator, StepCandidate } from './types.js';
