import type { StepOperatorName } from '../operators/index.js';
import { historyBefore, toolsText } from '../views.js';
import { nextStepChoices } from './step-mcq.js';
import { type QuestionDraft, type QuestionTypeModule, type SkipReason, chooseAnchors } from './module.js';

const OPERATORS: StepOperatorName[] = ['off_target_path', 'off_target_argument', 'wrong_tool', 'premature_submit', 'other_position', 'borrowed_step'];

/** Next-action MCQ: given the tool set and the trajectory prefix, pick the next command. */
export const nextActionMcq: QuestionTypeModule = {
  kind: 'next_action_mcq',
  format: 'mcq',
  domains: ['swe'],
  template: 'next_action_mcq',
  generate(t, ctx) {
    const skipped: SkipReason[] = [];
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 3) return { drafts: [], skipped: ['too-short'] };
    const eligible = t.steps.map((_, i) => i).filter((i) => i >= 1 && t.steps[i]!.action.kind !== 'message' && t.steps[i]!.action.text.trim() !== '');
    if (eligible.length === 0) return { drafts: [], skipped: ['no-commands'] };
    const drafts: QuestionDraft[] = [];
    for (const i of chooseAnchors(ctx, eligible)) {
      const mcq = nextStepChoices(t, i, ctx, OPERATORS, (c) => c.action.text.replace(/\s*\n\s*/g, ' ').trim());
      if (typeof mcq === 'string') {
        skipped.push(mcq);
        continue;
      }
      drafts.push({
        kind: 'next_action_mcq',
        step: i,
        fields: { goal: t.task.goal, tools: toolsText(t) },
        history: historyBefore(t, i, ctx.observationChars),
        answerStem: 'The correct next command is (',
        answerSuffix: ')',
        mcq,
      });
    }
    return { drafts, skipped };
  },
};
