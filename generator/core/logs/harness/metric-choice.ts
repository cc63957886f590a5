import type { MetricKey } from './results.js';

/** `--metric TASK=METRIC[,FILTER]`; TASK may use `*` as a wildcard (first matching rule wins). */
export interface MetricRule {
  task: string;
  metric: string;
  filter?: string;
}

export interface MetricChoice extends MetricKey {
  /** How it was decided, recorded in the store's provenance. */
  reason: 'user' | 'preferred' | 'first-higher-is-better' | 'first';
  /** Other filters the metric exists under (multi-filter tasks). */
  otherFilters: string[];
}

/**
 * Default preference: the headline metric of each output type. `acc` before `acc_norm`
 * because it is the harness's own first metric for multiple_choice and what APTBench-style
 * MCQs report; `set_match` and `tool_call_match` are the headline metrics of aptpace's own
 * multi-select and tool-call tasks (emit/kinds); perplexity-style metrics are never a default
 * (they are not 0–1 per-instance scores and lower is better).
 */
export const PREFERRED_METRICS = ['acc', 'exact_match', 'acc_norm', 'acc_mutual_info', 'pass@1', 'pass_at_1', 'set_match', 'tool_call_match'];
/**
 * For generation tasks `acc` is no built-in: aptpace's suites report it as the headline copy
 * of a task's own score (emit/metrics.ts). The named score comes first, so the store keeps
 * the metric ingest can re-score (`exact_match`) and the label a reader recognises.
 */
export const PREFERRED_GENERATION_METRICS = ['exact_match', 'pass@1', 'pass_at_1', 'set_match', 'tool_call_match', 'acc'];
/**
 * Metrics whose per-sample value is not a per-instance score: `[loglik, n]` pairs
 * (perplexities), `[ref, pred]` passthroughs scored at corpus level (bleu, chrf, ter),
 * gold/pred tuples (f1/mcc/brier for multiple_choice), `bypass` (null), and the `pace_*` predictions an
 * aptpace proxy-only suite adds (workflow/proxy-suite-pace.ts). Never a default.
 */
export const CORPUS_LEVEL_METRICS = /perplexity|bits_per_byte|^bypass$|^bleu$|^chrf$|^ter$|^brier_score$|^mcc$|^likelihood$|^pace_/;
/** Preferred filter when a metric is reported under several. */
export const PREFERRED_FILTERS = ['none', 'strict-match', 'flexible-extract'];

export function parseMetricRule(spec: string): MetricRule | undefined {
  const eq = spec.indexOf('=');
  if (eq <= 0 || eq === spec.length - 1) return undefined;
  const task = spec.slice(0, eq).trim();
  const rest = spec.slice(eq + 1).trim();
  const comma = rest.lastIndexOf(',');
  const metric = comma > 0 ? rest.slice(0, comma) : rest;
  const filter = comma > 0 ? rest.slice(comma + 1) : undefined;
  if (!metric || filter === '') return undefined;
  return filter ? { task, metric, filter } : { task, metric };
}

export function ruleMatches(rule: MetricRule, task: string): boolean {
  if (!rule.task.includes('*')) return rule.task === task;
  const re = new RegExp(`^${rule.task.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(task);
}

/**
 * Picks one (metric, filter) for a task from the keys every kept run reports. Returns
 * undefined when a user rule names something absent (the caller reports it).
 */
export function chooseMetric(
  task: string,
  available: MetricKey[],
  higherIsBetter: Record<string, boolean>,
  rules: MetricRule[],
  outputType?: string,
): MetricChoice | { missing: MetricRule } | undefined {
  const rule = rules.find((r) => ruleMatches(r, task));
  const filtersOf = (metric: string) => available.filter((k) => k.metric === metric).map((k) => k.filter);
  const pickFilter = (metric: string, wanted?: string): string | undefined => {
    const filters = filtersOf(metric);
    if (wanted !== undefined) return filters.includes(wanted) ? wanted : undefined;
    return PREFERRED_FILTERS.find((f) => filters.includes(f)) ?? filters[0];
  };
  const done = (metric: string, filter: string, reason: MetricChoice['reason']): MetricChoice => ({
    metric,
    filter,
    reason,
    otherFilters: filtersOf(metric).filter((f) => f !== filter),
  });
  if (rule) {
    const filter = pickFilter(rule.metric, rule.filter);
    return filter === undefined ? { missing: rule } : done(rule.metric, filter, 'user');
  }
  if (available.length === 0) return undefined;
  for (const metric of outputType === 'generate_until' ? PREFERRED_GENERATION_METRICS : PREFERRED_METRICS) {
    const filter = pickFilter(metric);
    if (filter !== undefined) return done(metric, filter, 'preferred');
  }
  const scalar = available.filter((k) => !CORPUS_LEVEL_METRICS.test(k.metric) && !(k.metric === 'f1' && outputType === 'multiple_choice'));
  const hib = scalar.find((k) => higherIsBetter[k.metric] === true);
  if (hib) return done(hib.metric, pickFilter(hib.metric)!, 'first-higher-is-better');
  const first = scalar[0];
  return first ? done(first.metric, pickFilter(first.metric)!, 'first') : undefined;
}

/** The instance metric label: `acc` for the default `none` filter, `exact_match,strict-match` otherwise. */
export function metricLabel(choice: MetricKey): string {
  return choice.filter === 'none' ? choice.metric : `${choice.metric},${choice.filter}`;
}
