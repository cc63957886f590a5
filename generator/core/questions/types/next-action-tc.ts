import { normaliseCommand } from '../normalise.js';
import { historyBefore, toolsText } from '../views.js';
import { type QuestionDraft, type QuestionTypeModule, chooseAnchors } from './module.js';
import { ctfField } from './domain-fields.js';

/**
 * Next-action completion: write the next command. Scored by exact match on the normalised
 * first line (the stop sequence ends generation at the first newline).
 */
export const nextActionTc: QuestionTypeModule = {
  kind: 'next_action_tc',
  format: 'completion',
  domains: ['swe', 'ctf'],
  template: 'next_action_tc',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 2) return { drafts: [], skipped: ['too-short'] };
    const eligible = t.steps
      .map((_, i) => i)
      .filter((i) => i >= 1 && t.steps[i]!.action.kind !== 'message' && normaliseCommand(t.steps[i]!.action.text) !== '');
    if (eligible.length === 0) return { drafts: [], skipped: ['no-commands'] };
    const drafts: QuestionDraft[] = chooseAnchors(ctx, eligible).map((i) => ({
      kind: 'next_action_tc',
      step: i,
      fields: { goal: t.task.goal, tools: toolsText(t), ...ctfField(t) },
      history: historyBefore(t, i, ctx.observationChars),
      answerStem: 'The next command:\n```bash\n',
      answerSuffix: '\n```',
      completion: { targets: [normaliseCommand(t.steps[i]!.action.text)], metric: 'exact_match', stop: ['\n', '```'] },
    }));
    return { drafts, skipped: [] };
  },
};
