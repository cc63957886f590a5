import { arrange, pickDistinct, proposeSteps } from '../distractors.js';
import { normaliseChoice } from '../normalise.js';
import type { StepOperatorName } from '../operators/index.js';
import { reorderedSteps } from '../operators/reordered-steps.js';
import { anchorContext } from '../context.js';
import { candidateOf, planOf } from '../plans.js';
import { offeredTools } from '../tools.js';
import { toolListText } from '../views.js';
import { distractorProblem } from './step-mcq.js';
import { historyBefore } from '../views.js';
import { isCommand } from './env-setup.js';
import { type QuestionDraft, type QuestionTypeModule, type SkipReason, chooseAnchors } from './module.js';

const OPERATORS: StepOperatorName[] = ['off_target_path', 'off_target_argument', 'other_position', 'borrowed_step'];

function joinPlans(plans: string[]): string {
  return plans.map((p, i) => `${i === 0 ? '' : 'Then '}${p.replace(/\s*$/, '')}`).join(' ');
}

/**
 * Environment setup, plan: pick the next two steps. Two-step choices make order matter,
 * so "the right steps in the wrong order" is a distractor, as are perturbed first steps.
 */
export const envSetupPlanMcq: QuestionTypeModule = {
  kind: 'env_setup_plan_mcq',
  format: 'mcq',
  domains: ['env_setup'],
  template: 'env_setup_plan_mcq',
  generate(t, ctx) {
    const skipped: SkipReason[] = [];
    if (t.steps.length < 3) return { drafts: [], skipped: ['too-short'] };
    const eligible = t.steps.map((_, i) => i).filter((i) => i >= 1 && i + 1 < t.steps.length && isCommand(t, i) && isCommand(t, i + 1));
    if (eligible.length === 0) return { drafts: [], skipped: ['too-short'] };
    const drafts: QuestionDraft[] = [];
    for (const i of chooseAnchors(ctx, eligible)) {
      const first = t.steps[i]!;
      const second = t.steps[i + 1]!;
      const goldPlans = [planOf(first), planOf(second)];
      const rng = ctx.rng.fork(`env${i}`);
      const offered = offeredTools(t, i).tools;
      const names = new Set(offered.map((x) => x.name));
      const context = anchorContext(t, i, [toolListText(offered), ...t.steps.slice(0, i).map((s) => planOf(s))]);
      const singles = proposeSteps({ rng, trajectory: t, position: i, gold: { ...candidateOf(first), plan: goldPlans[0]! }, corpus: ctx.corpus, offered: names }, OPERATORS);
      const reordered = reorderedSteps.reorder(goldPlans);
      const goldJoined = joinPlans(goldPlans);
      const proposals = [
        ...singles.map((p) => ({
          operator: p.operator,
          values: p.values.map((c) => ({ c, text: joinPlans([c.plan, goldPlans[1]!]) })).filter(({ c, text }) => distractorProblem(c, text, names, context, goldJoined) === null).map((x) => x.text),
        })),
        { operator: reorderedSteps.name, values: reordered ? [joinPlans(reordered)] : [] },
      ];
      const goldText = joinPlans(goldPlans);
      const picked = pickDistinct(rng.fork('pick'), proposals, normaliseChoice, normaliseChoice(goldText), new Set(), ctx.choices - 1);
      if (picked.length < ctx.choices - 1) {
        skipped.push('too-few-distractors');
        continue;
      }
      drafts.push({
        kind: 'env_setup_plan_mcq',
        step: i,
        fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null, thought_action: ctx.planHistory === 'thought-action' },
        history: historyBefore(t, i, ctx.observationChars),
        answerStem: 'The correct next steps are (',
        answerSuffix: ')',
        mcq: arrange(rng.fork('arrange'), goldText, picked),
      });
    }
    return { drafts, skipped };
  },
};
