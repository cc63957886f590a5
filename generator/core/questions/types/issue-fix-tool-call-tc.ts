import { MAX_CALL_CHARS, callFormatOf, callKey, callText } from '../operators/tool-call-format.js';
import { historyBefore, toolsText } from '../views.js';
import { offeredToolsBefore } from './new-kinds-shared.js';
import { type QuestionDraft, type QuestionTypeModule, type SkipReason, chooseAnchors } from './module.js';

export const TOOL_CALL_HEADER = 'Request: Write the next tool call';

/**
 * Issue-fix tool-call completion: the issue, the offered tools and the calls so far, each in
 * the agent's own format (function-calling JSON or its command syntax); the model writes the
 * next call on one line. Scored by normalised exact match of name and arguments (utils.py).
 * A call that repeats an earlier one is skipped: it could be copied from the prompt.
 */
export const issueFixToolCallTc: QuestionTypeModule = {
  kind: 'issue_fix_tool_call_tc',
  format: 'completion',
  domains: ['swe'],
  template: 'issue_fix_tool_call_tc',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 2) return { drafts: [], skipped: ['too-short'] };
    const format = callFormatOf(t);
    const calls = t.steps.map((s) => callText(s, format));
    const keys = calls.map((c) => (c === null ? null : callKey(c, format)));
    const skipped: SkipReason[] = [];
    const eligible: number[] = [];
    for (let i = 1; i < t.steps.length; i++) {
      const a = t.steps[i]!.action;
      if (a.kind === 'message' || a.kind === 'finish' || a.kind === 'llm_call' || !a.tool) continue;
      const call = calls[i];
      if (call == null || call.length > MAX_CALL_CHARS) skipped.push('multi-line-call');
      else if (Object.keys(a.args).length === 0) skipped.push('empty-call');
      else if (keys.slice(0, i).includes(keys[i]!)) skipped.push('repeated-step');
      else eligible.push(i);
    }
    if (eligible.length === 0) return { drafts: [], skipped: skipped.length ? skipped : ['no-commands'] };
    const drafts: QuestionDraft[] = chooseAnchors(ctx, eligible).map((i) => ({
      kind: 'issue_fix_tool_call_tc',
      step: i,
      fields: { goal: t.task.goal, tools: toolsText(t), json_calls: format === 'json' },
      // Each earlier step shows its call exactly as a target would be written.
      history: historyBefore(t, i, ctx.observationChars).map((v, k) => ({ ...v, call: calls[k] ?? v.raw })),
      answerStem: format === 'json' ? 'Next call: ' : 'Next command: ',
      answerSuffix: '',
      completion: { targets: [calls[i]!], metric: 'tool_call', stop: ['\n'] },
      offeredTools: offeredToolsBefore(t, i),
      questionHeader: TOOL_CALL_HEADER,
    }));
    // Anchors not chosen are not skipped; only ineligible steps are counted.
    return { drafts, skipped: drafts.length ? [] : skipped };
  },
};
