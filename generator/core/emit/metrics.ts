/**
 * Every metric an emitted suite reports, with the definition the suite README prints.
 * `satisfies` makes a metric without docs a compile error.
 */
export type MetricName = 'acc' | 'acc_norm' | 'exact_match' | 'rouge1' | 'rouge2' | 'rougeL' | 'tool_call_match' | 'tool_name_match' | 'set_match' | 'set_f1';

/**
 * The one filter name every task reports under. Multiple choice uses the harness's default
 * pipeline (`none`); completions name their pipeline (the first-line normaliser, then
 * `take_first`) `none` too, because lm-eval aggregates a group per (metric, filter) key: with
 * one filter name, the headline metric is one key over every task and a group prints one score.
 */
export const ANSWER_FILTER = 'none';

/**
 * The headline metric every task reports, so each group row carries one score. It is the
 * harness's built-in `acc` for multiple choice and the task's own per-document credit for
 * completions (see its definition below).
 */
export const HEADLINE_METRIC = 'acc' satisfies MetricName;

export interface MetricInfo {
  title: string;
  higherIsBetter: boolean;
  definition: string;
}

export const METRICS = {
  acc: {
    title: 'Headline score',
    higherIsBetter: true,
    definition:
      'Every task reports it, so each group averages one score over all its tasks. Multiple choice: 1 when the gold choice has the highest log-likelihood as a continuation of the prompt, else 0 (built-in `acc`). Completions: the task\'s own per-document score, that is `exact_match` (answers scored by EM, alone or with ROUGE), `tool_call_match`, `set_match`, or `rougeL` for answers scored by ROUGE alone.',
  },
  acc_norm: {
    title: 'Length-normalised accuracy',
    higherIsBetter: true,
    definition: 'As `acc`, with each choice\'s log-likelihood divided by its length in characters (built-in `acc_norm`); reported for option-text scoring, where choices differ in length.',
  },
  exact_match: {
    title: 'Exact match',
    higherIsBetter: true,
    definition:
      'Greedy generation until a stop sequence, normalised to its first non-empty line (opening code fence and `$ ` prompt removed, whitespace collapsed); 1 when it equals any normalised reference, case- and punctuation-sensitive (built-in `exact_match` with `ignore_case: false`, `ignore_punctuation: false`, `ignore_numbers: false`). Answers scored together with ROUGE are compared after Unicode NFKC on both sides, so full-width letters, digits and punctuation equal their ASCII forms.',
  },
  rouge1: {
    title: 'ROUGE-1 F',
    higherIsBetter: true,
    definition:
      'Unigram-overlap F-measure between the normalised generation and the best-matching reference (`rouge_score`, no stemming), over CJK-aware tokens: NFKC and lower-cased, each CJK character one token, every other run of letters and digits one word (on ASCII text the tokens of `rouge_score`\'s default tokenizer, which drops CJK).',
  },
  rouge2: {
    title: 'ROUGE-2 F',
    higherIsBetter: true,
    definition: 'Bigram-overlap F-measure, as ROUGE-1.',
  },
  rougeL: {
    title: 'ROUGE-L F',
    higherIsBetter: true,
    definition: 'Longest-common-subsequence F-measure, as ROUGE-1.',
  },
  tool_call_match: {
    title: 'Tool-call exact match',
    higherIsBetter: true,
    definition:
      'The generated line parsed as a call in the agent\'s own format (function-calling JSON `{"name", "arguments"}`, or a command line split shell-style into name and arguments); 1 when name and arguments equal the reference\'s after normalisation (key order ignored, whitespace collapsed, scalars compared as text), else 0 (`utils.process_results_tool_call`).',
  },
  tool_name_match: {
    title: 'Tool-name match',
    higherIsBetter: true,
    definition: 'As `tool_call_match`, comparing only the tool (or command) name.',
  },
  set_match: {
    title: 'Set match',
    higherIsBetter: true,
    definition: 'Every number in the generated line (NFKC-normalised, so full-width digits count) as a set; 1 when it equals the set of correct option numbers, else 0 (`utils.process_results_multi_select`).',
  },
  set_f1: {
    title: 'Set F1',
    higherIsBetter: true,
    definition: 'F1 between the generated set of option numbers and the correct set (0 when nothing is generated), as `set_match`.',
  },
} as const satisfies Record<MetricName, MetricInfo>;

/** Order metrics appear in group files and READMEs. */
export const METRIC_ORDER: readonly MetricName[] = ['acc', 'acc_norm', 'exact_match', 'rouge1', 'rouge2', 'rougeL', 'tool_call_match', 'tool_name_match', 'set_match', 'set_f1'];

export const ROUGE_TYPES = ['rouge1', 'rouge2', 'rougeL'] as const;

/** Options given explicitly to the built-in `exact_match`, in YAML and in utils.py alike. */
export const EXACT_MATCH_OPTIONS = { ignore_case: false, ignore_punctuation: false, ignore_numbers: false } as const;
