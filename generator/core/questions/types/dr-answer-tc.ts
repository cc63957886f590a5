import { singleSpaced } from '../../kernel/whitespace.js';
import { stepView } from '../views.js';
import type { QuestionTypeModule } from './module.js';

/** Deep research, answer: write the short final answer from the search trajectory (EM + ROUGE). */
export const drAnswerTc: QuestionTypeModule = {
  kind: 'dr_answer_tc',
  format: 'completion',
  domains: ['deep_research'],
  template: 'dr_answer_tc',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    // A successful run's own final answer is the short form the question asks for (APTBench's
    // `answer`); the dataset's gold (often a full sentence) is kept as a second reference.
    const flat = (s: string | null | undefined) => singleSpaced(s ?? '').trim();
    const submitted = flat(t.outcome.submission);
    const gold = flat(t.task.gold_answer);
    const targets = [...new Set([submitted.length > 0 && submitted.length <= 300 ? submitted : '', gold].filter(Boolean))];
    if (targets.length === 0) return { drafts: [], skipped: ['no-answer'] };
    // The finishing step usually states the answer; showing it would give it away.
    const steps = t.steps.filter((s) => s.action.kind !== 'finish');
    if (steps.length < 1) return { drafts: [], skipped: ['too-short'] };
    return {
      drafts: [{
        kind: 'dr_answer_tc',
        step: null,
        fields: { goal: t.task.goal },
        history: steps.map((s) => stepView(s, ctx.observationChars)),
        answerStem: 'The answer is [',
        answerSuffix: ']',
        completion: { targets, metric: 'exact_match+rouge', stop: [']', '\n'] },
      }],
      skipped: [],
    };
  },
};
