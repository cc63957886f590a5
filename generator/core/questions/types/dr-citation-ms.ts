import { middleCut } from '../views.js';
import { offeredToolsBefore } from './new-kinds-shared.js';
import type { QuestionTypeModule } from './module.js';

export const CITATION_HEADER = 'Request: Cite the observations that support the final answer.';

/** Case, width and spacing do not make a mention different. */
export function normaliseMention(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The canonical answer text the model writes: 1-based numbers, ascending, comma-separated. */
export function citationTarget(golds: readonly number[]): string {
  return golds.map((g) => g + 1).join(', ');
}

/**
 * Deep-research citation / evidence multi-select: the question, the final answer and the
 * numbered observations of the run; the model lists every observation that supports the
 * answer. An observation supports it when its shown text states the answer (normalised
 * containment, checked on the text as capped in the prompt). Scored by set equality and F1.
 * A run where no observation, or every observation, states the answer is skipped: the first
 * has no gold, the second would make "select all" the gold.
 */
export const drCitationMs: QuestionTypeModule = {
  kind: 'dr_citation_ms',
  format: 'multi_select',
  domains: ['deep_research'],
  template: 'dr_citation_ms',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    const flat = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
    const submitted = flat(t.outcome.submission);
    const answer = submitted.length > 0 && submitted.length <= 300 ? submitted : flat(t.task.gold_answer);
    if (!answer) return { drafts: [], skipped: ['no-answer'] };
    const evidence = t.steps
      .filter((s) => s.action.kind !== 'finish' && (s.observation ?? '').trim() !== '')
      .map((s, k) => {
        const shown = middleCut(s.observation!, ctx.observationChars);
        return { number: k + 1, tool: s.action.tool, args: s.action.args, action: s.action.text, observation: shown.text, cut: shown.cut };
      });
    if (evidence.length < 2) return { drafts: [], skipped: ['too-short'] };
    const key = normaliseMention(answer);
    const golds = evidence.map((e, i) => (normaliseMention(e.observation).includes(key) ? i : -1)).filter((i) => i >= 0);
    if (golds.length === 0) return { drafts: [], skipped: ['no-evidence'] };
    if (golds.length === evidence.length) return { drafts: [], skipped: ['all-evidence'] };
    const choices = evidence.map((e) => `Observation ${e.number}: ${e.action.replace(/\s+/g, ' ').trim()}`);
    const reasons: Record<string, string> = {};
    choices.forEach((c, i) => (reasons[c] = golds.includes(i) ? '' : 'its text does not state the final answer'));
    const target = citationTarget(golds);
    return {
      drafts: [{
        kind: 'dr_citation_ms',
        step: null,
        fields: { goal: t.task.goal, final_answer: answer, evidence },
        // Options live in `fields`: budget truncation drops history, never an option.
        history: [],
        answerStem: 'Supporting observations: [',
        answerSuffix: ']',
        completion: { targets: [target], metric: 'exact_match', stop: [']', '\n'] },
        multiSelect: { choices, golds },
        reasons,
        offeredTools: offeredToolsBefore(t, t.steps.length),
        questionHeader: CITATION_HEADER,
      }],
      skipped: [],
    };
  },
};
