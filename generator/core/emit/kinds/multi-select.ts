import type { MultiSelectQuestion } from '../../questions/types.js';
import type { MetricEntry } from '../task-config.js';
import { FunctionRef } from '../task-config.js';
import { HEADLINE_METRIC } from '../metrics.js';
import { answerFilterList, checkPrompt, closerFor, commonColumns, promptBase, type KindProblem, type TaskKindSpec } from './shared.js';

/**
 * Multi-select: the model writes the numbers of every option that applies; scored by
 * `utils.process_results_multi_select` as set equality and F1 against the correct numbers.
 * The row carries the canonical answer (`targets`, e.g. `1, 3`) and the option count.
 */
export const multiSelect: TaskKindSpec<MultiSelectQuestion> = {
  kind: 'multi_select',
  title: 'Multi-select, option numbers (set match + F1)',
  format: 'multi_select',
  outputType: 'generate_until',
  metrics: [HEADLINE_METRIC, 'set_match', 'set_f1'],
  utilsBlock: 'multi_select',
  check(q) {
    const out: KindProblem[] = [...checkPrompt(q)];
    const bad = q.golds.some((g) => !Number.isInteger(g) || g < 0 || g >= q.choices.length);
    if (q.golds.length === 0 || bad) out.push({ code: 'emit-mcq-gold-out-of-range', field: 'golds', args: { id: q.id, gold: q.golds.join(','), count: q.choices.length } });
    return out;
  },
  document(q, shotTarget) {
    const { base, stem } = promptBase(q);
    const query = base + stem;
    const target = q.golds.map((g) => g + 1).join(', ');
    const row = { id: q.id, query, targets: [target], n_choices: q.choices.length };
    return shotTarget ? { ...row, shot_target: target + closerFor(query), ...commonColumns(q) } : { ...row, ...commonColumns(q) };
  },
  config(questions) {
    const metricList: MetricEntry[] = this.metrics.map((metric) => ({ metric, aggregation: 'mean', higher_is_better: true }));
    const stops = new Set<string>();
    for (const q of questions) for (const s of q.stop) if (s) stops.add(s);
    const longest = Math.max(0, ...questions.map((q) => q.choices.length));
    return {
      output_type: 'generate_until',
      doc_to_target: 'targets',
      // Room for every option number and its separator, never below 32 tokens.
      generation_kwargs: { until: stops.size ? [...stops].sort() : ['\n'], max_gen_toks: Math.max(32, 4 * longest), do_sample: false, temperature: 0 },
      filter_list: answerFilterList(),
      process_results: new FunctionRef('utils.process_results_multi_select'),
      metric_list: metricList,
    };
  },
};
