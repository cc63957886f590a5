import type { CompletionQuestion } from '../../questions/types.js';
import type { MetricEntry } from '../task-config.js';
import { FunctionRef } from '../task-config.js';
import { HEADLINE_METRIC } from '../metrics.js';
import { checkCompletion, maxGenTokens, normalisedTargets, stopSequences } from './completion.js';
import { answerFilterList, checkPrompt, closerFor, commonColumns, promptBase, type KindProblem, type TaskKindSpec } from './shared.js';

/** `json` when the reference is a function-calling object, else the agent's command syntax. */
export function callFormatOfTarget(target: string): 'json' | 'command' {
  const t = target.trim();
  if (!t.startsWith('{')) return 'command';
  try {
    const obj = JSON.parse(t) as unknown;
    return obj && typeof obj === 'object' && typeof (obj as Record<string, unknown>).name === 'string' ? 'json' : 'command';
  } catch {
    return 'command';
  }
}

/**
 * The next tool call, generated on one line and scored by `utils.process_results_tool_call`:
 * normalised exact match of name and arguments, plus name-only match. Each row says which
 * format its reference is in (`call_format`), so one task may mix JSON and command agents.
 */
export const completionToolCall: TaskKindSpec<CompletionQuestion> = {
  kind: 'completion_tool_call',
  title: 'Completion, tool call (name + arguments)',
  format: 'completion',
  outputType: 'generate_until',
  metrics: [HEADLINE_METRIC, 'tool_call_match', 'tool_name_match'],
  utilsBlock: 'tool_call',
  check: checkCompletion,
  document(q, shotTarget) {
    const { base, stem } = promptBase(q);
    const query = base + stem;
    const targets = normalisedTargets(q);
    const row = { id: q.id, query, targets, call_format: callFormatOfTarget(targets[0] ?? '') };
    return shotTarget ? { ...row, shot_target: targets[0]! + closerFor(query), ...commonColumns(q) } : { ...row, ...commonColumns(q) };
  },
  config(questions) {
    const metricList: MetricEntry[] = this.metrics.map((metric) => ({ metric, aggregation: 'mean', higher_is_better: true }));
    return {
      output_type: 'generate_until',
      doc_to_target: 'targets',
      generation_kwargs: { until: stopSequences(questions), max_gen_toks: maxGenTokens(questions), do_sample: false, temperature: 0 },
      filter_list: answerFilterList(),
      process_results: new FunctionRef('utils.process_results_tool_call'),
      metric_list: metricList,
    };
  },
};
