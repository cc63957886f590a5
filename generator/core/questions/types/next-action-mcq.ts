import type { StepOperatorName } from '../operators/index.js';
import { nextStepDrafts } from './step-mcq.js';
import type { QuestionTypeModule } from './module.js';
import { ctfField } from './domain-fields.js';

// No `wrong_tool`: a misspelled program is eliminable on sight.
const OPERATORS: StepOperatorName[] = ['off_target_path', 'off_target_argument', 'premature_submit', 'other_position', 'borrowed_step'];

/** Next-action MCQ: given the tool set and the trajectory prefix, pick the next command. */
export const nextActionMcq: QuestionTypeModule = {
  kind: 'next_action_mcq',
  format: 'mcq',
  domains: ['swe', 'ctf'],
  template: 'next_action_mcq',
  pairsFinishes: true,
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 3) return { drafts: [], skipped: ['too-short'] };
    const eligible = t.steps.map((_, i) => i).filter((i) => i >= 1 && t.steps[i]!.action.kind !== 'message' && t.steps[i]!.action.text.trim() !== '');
    if (eligible.length === 0) return { drafts: [], skipped: ['no-commands'] };
    return nextStepDrafts(t, ctx, {
      kind: 'next_action_mcq',
      eligible,
      operators: OPERATORS,
      render: (c) => c.action.text.replace(/\s*\n\s*/g, ' ').trim(),
      showTools: true,
      fields: { goal: t.task.goal, ...ctfField(t) },
      answerStem: 'The correct next command is (',
    });
  },
};
