import type { StepOperatorName } from '../operators/index.js';
import { intentOf } from '../plans.js';
import { hasThoughts } from '../views.js';
import { nextStepDrafts } from './step-mcq.js';
import type { QuestionTypeModule } from './module.js';
import { ctfField } from './domain-fields.js';

const OPERATORS: StepOperatorName[] = ['off_target_path', 'off_target_argument', 'premature_submit', 'other_position', 'borrowed_step'];

/** Planning MCQ: given the problem and the trajectory so far, pick the plan of the next step. */
export const planMcq: QuestionTypeModule = {
  kind: 'plan_mcq',
  format: 'mcq',
  domains: ['swe', 'ctf'],
  template: 'plan_mcq',
  pairsFinishes: true,
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 3) return { drafts: [], skipped: ['too-short'] };
    // Without thoughts or plans the "plans" would only restate commands: a next-action question in disguise.
    if (!hasThoughts(t)) return { drafts: [], skipped: ['no-thoughts'] };
    const candidates = t.steps.map((_, i) => i).filter((i) => i >= 1 && t.steps[i]!.action.kind !== 'message');
    // A gold must be the agent's own intent for the step; commentary on the last observation is not a plan.
    const eligible = candidates.filter((i) => intentOf(t.steps[i]!) !== null);
    const noIntent = candidates.filter((i) => intentOf(t.steps[i]!) === null).map(() => 'no-intent' as const);
    const result = nextStepDrafts(t, ctx, {
      kind: 'plan_mcq',
      eligible,
      needsIntent: true,
      operators: OPERATORS,
      render: (c) => c.plan,
      fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null, thought_action: ctx.planHistory === 'thought-action', ...ctfField(t) },
      answerStem: 'The correct next step plan is (',
    });
    return { drafts: result.drafts, skipped: [...noIntent, ...result.skipped] };
  },
};
