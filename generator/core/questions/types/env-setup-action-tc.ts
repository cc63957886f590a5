import { normaliseCommand } from '../normalise.js';
import { historyBefore } from '../views.js';
import { executionPlan, isCommand } from './env-setup.js';
import { type QuestionDraft, type QuestionTypeModule, chooseAnchors } from './module.js';

/** Environment setup, next command: APTBench's env_setup/action shape (plan + executed commands). */
export const envSetupActionTc: QuestionTypeModule = {
  kind: 'env_setup_action_tc',
  format: 'completion',
  domains: ['env_setup'],
  template: 'env_setup_action_tc',
  generate(t, ctx) {
    if (t.steps.length < 2) return { drafts: [], skipped: ['too-short'] };
    const eligible = t.steps.map((_, i) => i).filter((i) => i >= 1 && isCommand(t, i) && normaliseCommand(t.steps[i]!.action.text) !== '');
    if (eligible.length === 0) return { drafts: [], skipped: ['no-commands'] };
    const plan = executionPlan(t);
    const drafts: QuestionDraft[] = chooseAnchors(ctx, eligible).map((i) => ({
      kind: 'env_setup_action_tc',
      step: i,
      fields: { goal: t.task.goal, execution_plan: plan, repo: t.environment.repo ?? t.source.repo ?? null },
      history: historyBefore(t, i, ctx.observationChars).filter((v) => isCommand(t, v.number - 1)),
      answerStem: 'The next command:\n```bash\n',
      answerSuffix: '\n```',
      completion: { targets: [normaliseCommand(t.steps[i]!.action.text)], metric: 'exact_match', stop: ['\n', '```'] },
    }));
    return { drafts, skipped: [] };
  },
};
