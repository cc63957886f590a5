import { singleSpaced } from '../../kernel/whitespace.js';
import { middleCut } from '../views.js';
import { offeredToolsBefore } from './new-kinds-shared.js';
import type { QuestionTypeModule } from './module.js';

export const CITATION_HEADER = 'Request: Cite the observations that state the answer to the question.';

/** Case, width, punctuation and spacing do not make a mention different (`S.p.A.` = `S p A`). */
export function normaliseMention(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

const WORD_CHAR = /[\p{Script=Latin}\p{N}]/u;

/**
 * True when `text` mentions `answer` as a whole: contiguous after normalisation and not part of
 * a longer Latin word or number (`Paris` is not in `comparison`, `1968` not in `19680`). CJK
 * has no word boundaries, so a CJK edge always counts.
 */
export function mentions(text: string, answer: string): boolean {
  const hay = normaliseMention(text);
  const key = normaliseMention(answer);
  if (!key) return false;
  for (let at = hay.indexOf(key); at >= 0; at = hay.indexOf(key, at + 1)) {
    const before = hay[at - 1] ?? ' ';
    const after = hay[at + key.length] ?? ' ';
    const edgeOk = (edge: string, inner: string) => !(WORD_CHAR.test(edge) && WORD_CHAR.test(inner));
    if (edgeOk(before, key[0]!) && edgeOk(after, key[key.length - 1]!)) return true;
  }
  return false;
}

/** The canonical answer text the model writes: 1-based numbers, ascending, comma-separated. */
export function citationTarget(golds: readonly number[]): string {
  return golds.map((g) => g + 1).join(', ');
}

/**
 * Deep-research citation / evidence multi-select: the question and the numbered observations
 * of the run (in a seeded order); the model lists every observation that states the answer.
 * An observation states it when its shown text mentions the run's answer as a whole (see
 * `mentions`; checked on the text as capped in the prompt). Scored by set equality and F1.
 *
 * The prompt does not show the answer: with it shown, marking every observation that contains
 * it is a string rule that matched the gold set in 92–94% of the real questions, so the kind
 * measured string search, not reading. Without it the model has to find the answer to cite
 * its sources.
 *
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
    const flat = (s: string | null | undefined) => singleSpaced(s ?? '').trim();
    const submitted = flat(t.outcome.submission);
    const answer = submitted.length > 0 && submitted.length <= 300 ? submitted : flat(t.task.gold_answer);
    if (!answer) return { drafts: [], skipped: ['no-answer'] };
    // Shown in a seeded order, not the run's: the agent stops once it has found the answer,
    // so in run order "pick the last observation" matched the gold set 41% of the time on the
    // real data (chance 12%). Numbers follow the shown order.
    const collected = t.steps
      .filter((s) => s.action.kind !== 'finish' && (s.observation ?? '').trim() !== '')
      .map((s) => {
        const shown = middleCut(s.observation!, ctx.observationChars);
        return { tool: s.action.tool, args: s.action.args, action: s.action.text, observation: shown.text, cut: shown.cut };
      });
    const evidence = ctx.rng.fork('order').shuffle(collected).map((e, k) => ({ number: k + 1, ...e }));
    if (evidence.length < 2) return { drafts: [], skipped: ['too-short'] };
    const golds = evidence.map((e, i) => (mentions(e.observation, answer) ? i : -1)).filter((i) => i >= 0);
    if (golds.length === 0) return { drafts: [], skipped: ['no-evidence'] };
    if (golds.length === evidence.length) return { drafts: [], skipped: ['all-evidence'] };
    const choices = evidence.map((e) => `Observation ${e.number}: ${singleSpaced(e.action).trim()}`);
    const reasons: Record<string, string> = {};
    choices.forEach((c, i) => (reasons[c] = golds.includes(i) ? '' : 'its text does not state the answer'));
    const target = citationTarget(golds);
    return {
      drafts: [{
        kind: 'dr_citation_ms',
        step: null,
        fields: { goal: t.task.goal, evidence },
        // Options live in `fields`: budget truncation drops history, never an option.
        history: [],
        answerStem: 'Observations that state the answer: [',
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
