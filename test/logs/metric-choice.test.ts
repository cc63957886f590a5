import { describe, expect, it } from 'vitest';
import { chooseMetric } from '../../generator/core/logs/harness/metric-choice.js';

describe('metric choice', () => {
  it('never picks the pace_* predictions a proxy-only suite adds as the per-instance score', () => {
    // A ROUGE-only task of the proxy suite: no preferred metric, and pace_* come first and are higher-is-better.
    const available = [
      { metric: 'pace_gaia', filter: 'first_line' },
      { metric: 'pace_gaia_lo95', filter: 'first_line' },
      { metric: 'rouge1', filter: 'first_line' },
      { metric: 'rougeL', filter: 'first_line' },
    ];
    const choice = chooseMetric('aptpace_dr_answer_rouge', available, { pace_gaia: true, pace_gaia_lo95: true, rouge1: true, rougeL: true }, [], 'generate_until');
    expect(choice).toMatchObject({ metric: 'rouge1', filter: 'first_line', reason: 'first-higher-is-better' });
    // Only pace_* reported: nothing to score instances with.
    expect(chooseMetric('t', available.slice(0, 2), { pace_gaia: true }, [], 'generate_until')).toBeUndefined();
  });

  it('picks the headline metric of our own multi-select and tool-call tasks without guessing', () => {
    const multi = chooseMetric('aptpace_ctf_multi', [{ metric: 'set_f1', filter: 'none' }, { metric: 'set_match', filter: 'none' }], { set_f1: true, set_match: true }, [], 'generate_until');
    expect(multi).toMatchObject({ metric: 'set_match', reason: 'preferred' });
    const tool = chooseMetric('aptpace_tool_call', [{ metric: 'tool_name_match', filter: 'first_line' }, { metric: 'tool_call_match', filter: 'first_line' }], { tool_name_match: true, tool_call_match: true }, [], 'generate_until');
    expect(tool).toMatchObject({ metric: 'tool_call_match', filter: 'first_line', reason: 'preferred' });
  });

  it('keeps the named score of a generation task that also reports the headline acc, and acc for multiple choice', () => {
    const hib = { acc: true, exact_match: true, rouge1: true, rougeL: true, set_match: true, set_f1: true };
    const keys = (...metrics: string[]) => metrics.map((metric) => ({ metric, filter: 'none' }));
    // exact_match first: ingest re-scores it from the responses; `acc` there is a copy of it.
    expect(chooseMetric('aptpace_dr_answer', keys('acc', 'exact_match', 'rouge1', 'rougeL'), hib, [], 'generate_until')).toMatchObject({ metric: 'exact_match', reason: 'preferred' });
    expect(chooseMetric('aptpace_dr_citation_ms', keys('acc', 'set_match', 'set_f1'), hib, [], 'generate_until')).toMatchObject({ metric: 'set_match', reason: 'preferred' });
    // ROUGE alone: the headline (ROUGE-L F), not a guess among the ROUGE variants.
    expect(chooseMetric('aptpace_dr_answer_rouge', keys('acc', 'rouge1', 'rougeL'), hib, [], 'generate_until')).toMatchObject({ metric: 'acc', reason: 'preferred' });
    expect(chooseMetric('aptpace_swe_plan_mcq', keys('acc', 'exact_match'), hib, [], 'multiple_choice')).toMatchObject({ metric: 'acc', reason: 'preferred' });
  });
});
