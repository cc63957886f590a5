import type { CompletionQuestion } from '../../questions/types.js';
import { normaliseCommand } from '../../questions/normalise.js';
import { EXACT_MATCH_OPTIONS, HEADLINE_METRIC, ROUGE_TYPES, type MetricName } from '../metrics.js';
import { FunctionRef, type MetricEntry, type TaskConfigSubset } from '../task-config.js';
import { answerFilterList, checkPrompt, closerFor, commonColumns, promptBase, type KindProblem, type TaskKind, type TaskKindSpec } from './shared.js';

/** Distinct non-empty references after the same normalisation the `first_line` filter applies to generations. */
/** A completion needs a usable prompt and at least one non-empty target after normalisation. */
export function checkCompletion(q: CompletionQuestion): KindProblem[] {
  const out: KindProblem[] = [...checkPrompt(q)];
  if (normalisedTargets(q).length === 0) out.push({ code: 'emit-completion-no-targets', field: 'targets', args: { id: q.id } });
  return out;
}

export function normalisedTargets(q: CompletionQuestion): string[] {
  const out: string[] = [];
  for (const t of q.targets) {
    const n = normaliseCommand(t);
    if (n !== '' && !out.includes(n)) out.push(n);
  }
  return out;
}

/** Union of the questions' stop sequences, sorted; the harness default (blank line) when none. */
export function stopSequences(questions: CompletionQuestion[]): string[] {
  const all = new Set<string>();
  for (const q of questions) for (const s of q.stop) if (s !== '') all.add(s);
  return all.size ? [...all].sort() : ['\n\n'];
}

/**
 * Room for the longest reference with about 2x headroom (a token is ~4 characters of code or
 * English), never below 32 or above 512: a stop sequence normally ends generation first.
 */
export function maxGenTokens(questions: CompletionQuestion[]): number {
  let longest = 0;
  for (const q of questions) for (const t of normalisedTargets(q)) longest = Math.max(longest, t.length);
  return Math.min(512, Math.max(32, Math.ceil(longest / 2) + 16));
}

interface CompletionScoring {
  kind: TaskKind;
  title: string;
  exactMatch: boolean;
  rouge: boolean;
}

export function completionKind(scoring: CompletionScoring): TaskKindSpec<CompletionQuestion> {
  const metrics: MetricName[] = [HEADLINE_METRIC, ...(scoring.exactMatch ? (['exact_match'] as const) : []), ...(scoring.rouge ? ROUGE_TYPES : [])];
  // EM alone goes through the built-in metric, and its headline through `utils.acc` (the same
  // built-in function, per reference). Anything with ROUGE needs process_results, which
  // replaces built-in scoring, so it computes EM and the headline too (with the built-in function).
  const processResults = scoring.rouge ? { name: `process_results_${scoring.kind}`, exactMatch: scoring.exactMatch, rouge: true } : undefined;
  return {
    kind: scoring.kind,
    title: scoring.title,
    format: 'completion',
    outputType: 'generate_until',
    metrics,
    processResults,
    check: checkCompletion,
    document(q, shotTarget) {
      const { base, stem } = promptBase(q);
      const query = base + stem;
      const targets = normalisedTargets(q);
      const row = { id: q.id, query, targets };
      return shotTarget ? { ...row, shot_target: targets[0]! + closerFor(query), ...commonColumns(q) } : { ...row, ...commonColumns(q) };
    },
    config(questions) {
      const metricList: MetricEntry[] = metrics.map((metric) => {
        if (processResults) return { metric, aggregation: 'mean', higher_is_better: true };
        if (metric === HEADLINE_METRIC) return { metric: new FunctionRef(`utils.${HEADLINE_METRIC}`), aggregation: 'mean', higher_is_better: true };
        return { metric, aggregation: 'mean', higher_is_better: true, ...EXACT_MATCH_OPTIONS };
      });
      const config: TaskConfigSubset = {
        output_type: 'generate_until',
        doc_to_target: 'targets',
        generation_kwargs: { until: stopSequences(questions), max_gen_toks: maxGenTokens(questions), do_sample: false, temperature: 0 },
        filter_list: answerFilterList(),
      };
      if (processResults) config.process_results = new FunctionRef(`utils.${processResults.name}`);
      config.metric_list = metricList;
      return config;
    },
  };
}
