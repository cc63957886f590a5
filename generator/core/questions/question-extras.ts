/**
 * What the new kinds (env_setup_error_mcq, issue_fix_tool_call_tc, dr_citation_ms) add to a
 * built question beyond the common fields: the multi-select shape, per-option reasons, the
 * offered tool set, the language and where the scored question segment starts. Kept out of
 * build.ts so the builder only calls two functions; fields the builder already set win.
 */
import type { MultiSelectQuestion, Question, QuestionBase } from './types.js';
import type { QuestionDraft } from './types/module.js';
import { languageOf } from './build-keys.js';

/** The multi-select question a draft with `multiSelect` becomes; undefined for other drafts. */
export function multiSelectQuestion(base: Omit<QuestionBase, 'format'> & { answer_stem: string }, draft: QuestionDraft): MultiSelectQuestion | undefined {
  if (!draft.multiSelect || !draft.completion) return undefined;
  return {
    ...base,
    format: 'multi_select',
    choices: draft.multiSelect.choices,
    golds: draft.multiSelect.golds,
    targets: draft.completion.targets,
    metric: 'set_match+f1',
    stop: draft.completion.stop,
  };
}

/**
 * Offset of the scored question in `prompt`: the start of the (shots + 1)-th block that begins
 * with `header` at a line start. Undefined when the header is not found that often.
 */
export function questionStartOf(prompt: string, header: string, shotsUsed: number): number | undefined {
  let from = 0;
  let found = -1;
  for (let k = 0; k <= shotsUsed; k++) {
    let at = prompt.indexOf(header, from);
    while (at > 0 && prompt[at - 1] !== '\n') at = prompt.indexOf(header, at + 1);
    if (at < 0) return undefined;
    found = at;
    from = at + header.length;
  }
  return found;
}

/** Fills language, offered tools, per-option reasons and question_start where the draft knows them. */
export function addQuestionExtras(q: Question, draft: QuestionDraft, goal: string, shotsUsed: number): void {
  if (q.language === undefined) {
    const own = [goal, ...(q.format === 'completion' ? [] : q.choices)].join('\n');
    q.language = languageOf(own);
  }
  if (draft.offeredTools && q.build.offered_tools === undefined) q.build.offered_tools = [...draft.offeredTools];
  if (draft.reasons && q.format !== 'completion' && q.build.choice_reasons === undefined) {
    q.build.choice_reasons = q.choices.map((c) => draft.reasons![c] ?? '');
  }
  if (q.format === 'multi_select' && q.build.choice_sources === undefined && draft.multiSelect) {
    const golds = new Set(draft.multiSelect.golds);
    q.build.choice_sources = q.choices.map((_, i) => (golds.has(i) ? 'gold' : 'unsupported_observation'));
  }
  if (draft.questionHeader && q.question_start === undefined) {
    const start = questionStartOf(q.prompt, draft.questionHeader, shotsUsed);
    if (start !== undefined) q.question_start = start;
  }
}
