/**
 * Every metric an emitted suite reports, with the filter it is reported under and the
 * definition the suite README prints. `satisfies` makes a metric without docs a compile error.
 */
export type MetricName = 'acc' | 'acc_norm' | 'exact_match' | 'rouge1' | 'rouge2' | 'rougeL' | 'tool_call_match' | 'tool_name_match' | 'set_match' | 'set_f1';

/** Filter names: `none` is the harness default for multiple choice; completions use ours. */
export type FilterName = 'none' | 'first_line';

export interface MetricInfo {
  title: string;
  filter: FilterName;
  higherIsBetter: boolean;
  definition: string;
}

export const METRICS = {
  acc: {
    title: 'Accuracy',
    filter: 'none',
    higherIsBetter: true,
    definition: '1 when the gold choice has the highest log-likelihood as a continuation of the prompt, else 0 (built-in `acc`).',
  },
  acc_norm: {
    title: 'Length-normalised accuracy',
    filter: 'none',
    higherIsBetter: true,
    definition: 'As `acc`, with each choice\'s log-likelihood divided by its length in characters (built-in `acc_norm`); reported for option-text scoring, where choices differ in length.',
  },
  exact_match: {
    title: 'Exact match',
    filter: 'first_line',
    higherIsBetter: true,
    definition:
      'Greedy generation until a stop sequence, normalised to its first non-empty line (opening code fence and `$ ` prompt removed, whitespace collapsed); 1 when it equals any normalised reference, case- and punctuation-sensitive (built-in `exact_match` with `ignore_case: false`, `ignore_punctuation: false`, `ignore_numbers: false`). Answers scored together with ROUGE are compared after Unicode NFKC on both sides, so full-width letters, digits and punctuation equal their ASCII forms.',
  },
  rouge1: {
    title: 'ROUGE-1 F',
    filter: 'first_line',
    higherIsBetter: true,
    definition:
      'Unigram-overlap F-measure between the normalised generation and the best-matching reference (`rouge_score`, no stemming), over CJK-aware tokens: NFKC and lower-cased, each CJK character one token, every other run of letters and digits one word (on ASCII text the tokens of `rouge_score`\'s default tokenizer, which drops CJK).',
  },
  rouge2: {
    title: 'ROUGE-2 F',
    filter: 'first_line',
    higherIsBetter: true,
    definition: 'Bigram-overlap F-measure, as ROUGE-1.',
  },
  rougeL: {
    title: 'ROUGE-L F',
    filter: 'first_line',
    higherIsBetter: true,
    definition: 'Longest-common-subsequence F-measure, as ROUGE-1.',
  },
  tool_call_match: {
    title: 'Tool-call exact match',
    filter: 'first_line',
    higherIsBetter: true,
    definition:
      'The generated line parsed as a call in the agent\'s own format (function-calling JSON `{"name", "arguments"}`, or a command line split shell-style into name and arguments); 1 when name and arguments equal the reference\'s after normalisation (key order ignored, whitespace collapsed, scalars compared as text), else 0 (`utils.process_results_tool_call`).',
  },
  tool_name_match: {
    title: 'Tool-name match',
    filter: 'first_line',
    higherIsBetter: true,
    definition: 'As `tool_call_match`, comparing only the tool (or command) name.',
  },
  set_match: {
    title: 'Set match',
    filter: 'first_line',
    higherIsBetter: true,
    definition: 'Every number in the generated line (NFKC-normalised, so full-width digits count) as a set; 1 when it equals the set of correct option numbers, else 0 (`utils.process_results_multi_select`).',
  },
  set_f1: {
    title: 'Set F1',
    filter: 'first_line',
    higherIsBetter: true,
    definition: 'F1 between the generated set of option numbers and the correct set (0 when nothing is generated), as `set_match`.',
  },
} as const satisfies Record<MetricName, MetricInfo>;

/** Order metrics appear in group files and READMEs. */
export const METRIC_ORDER: readonly MetricName[] = ['acc', 'acc_norm', 'exact_match', 'rouge1', 'rouge2', 'rougeL', 'tool_call_match', 'tool_name_match', 'set_match', 'set_f1'];

export const ROUGE_TYPES = ['rouge1', 'rouge2', 'rougeL'] as const;

/** Options given explicitly to the built-in `exact_match`, in YAML and in utils.py alike. */
export const EXACT_MATCH_OPTIONS = { ignore_case: false, ignore_punctuation: false, ignore_numbers: false } as const;
