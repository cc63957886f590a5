import type { StepOperatorName } from '../operators/index.js';
import { hasThoughts, historyBefore } from '../views.js';
import { nextStepChoices } from './step-mcq.js';
import { type QuestionDraft, type QuestionTypeModule, type SkipReason, chooseAnchors } from './module.js';

const OPERATORS: StepOperatorName[] = ['off_target_path', 'off_target_argument', 'premature_submit', 'other_position', 'borrowed_step'];

/** Planning MCQ: given the problem and the trajectory so far, pick the plan of the next step. */
export const planMcq: QuestionTypeModule = {
  kind: 'plan_mcq',
  format: 'mcq',
  domains: ['swe'],
  template: 'plan_mcq',
  generate(t, ctx) {
    const skipped: SkipReason[] = [];
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 3) return { drafts: [], skipped: ['too-short'] };
    // Without thoughts or plans the "plans" would only restate commands: a next-action question in disguise.
    if (!hasThoughts(t)) return { drafts: [], skipped: ['no-thoughts'] };
    const eligible = t.steps.map((_, i) => i).filter((i) => i >= 1 && t.steps[i]!.action.kind !== 'message');
    const drafts: QuestionDraft[] = [];
    for (const i of chooseAnchors(ctx, eligible)) {
      const mcq = nextStepChoices(t, i, ctx, OPERATORS, (c) => c.plan);
      if (typeof mcq === 'string') {
        skipped.push(mcq);
        continue;
      }
      drafts.push({
        kind: 'plan_mcq',
        step: i,
        fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null, thought_action: ctx.planHistory === 'thought-action' },
        history: historyBefore(t, i, ctx.observationChars),
        answerStem: 'The correct next step plan is (',
        answerSuffix: ')',
        mcq,
      });
    }
    return { drafts, skipped };
  },
};
