/**
 * The subset of lm-evaluation-harness `TaskConfig` / `GroupConfig` that aptpace emits, as
 * TypeScript types and as a JSON Schema (2020-12). Every generated YAML document is
 * validated against these schemas before anything is written. `TaskConfig(**cfg)` raises on
 * unknown keys, so the schemas forbid additional properties.
 */

/** A `!function module.fn` reference, resolved by the harness relative to the YAML's folder. */
export class FunctionRef {
  constructor(readonly ref: string) {}
}

export type ConfigValue = string | number | boolean | null | FunctionRef | ConfigValue[] | { [key: string]: ConfigValue };

export interface MetricEntry {
  /** A built-in metric's name, or a `utils` function whose name is the metric's. */
  metric: string | FunctionRef;
  aggregation: 'mean';
  higher_is_better: boolean;
  ignore_case?: boolean;
  ignore_punctuation?: boolean;
  ignore_numbers?: boolean;
}

export interface FilterStep {
  function: 'custom' | 'take_first';
  filter_fn?: FunctionRef;
}

export interface TaskConfigSubset {
  task?: string;
  task_alias?: string;
  include?: string;
  custom_dataset?: FunctionRef;
  dataset_kwargs?: { data_files: Record<string, string> };
  test_split?: string;
  fewshot_split?: string;
  output_type?: 'multiple_choice' | 'generate_until';
  doc_to_text?: string;
  doc_to_target?: string;
  doc_to_choice?: string;
  target_delimiter?: string;
  fewshot_delimiter?: string;
  num_fewshot?: number;
  fewshot_config?: { sampler: 'first_n'; split: string; doc_to_target: string };
  generation_kwargs?: { until: string[]; max_gen_toks: number; do_sample: false; temperature: number };
  filter_list?: Array<{ name: string; filter: FilterStep[] }>;
  process_results?: FunctionRef;
  metric_list?: MetricEntry[];
  metadata?: { version: string; [key: string]: ConfigValue };
}

export interface GroupConfigSubset {
  group: string;
  group_alias?: string;
  task: string[];
  aggregate_metric_list: Array<{ metric: string; aggregation: 'mean'; weight_by_size: boolean; filter_list: string[] }>;
  metadata: { version: string; [key: string]: ConfigValue };
}

/** Plain JSON view used for schema validation and round-trip comparison: `!function x` ↦ `{"!function": "x"}`. */
export function toPlain(value: unknown): unknown {
  if (value instanceof FunctionRef) return { '!function': value.ref };
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = toPlain(v);
    return out;
  }
  return value;
}

/** Starts alphanumeric: `_<suite>.yaml` and the include bases are ours, and `-x` reads like a flag. */
export const HARNESS_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$';
const columnName = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } as const;
const functionRef = {
  type: 'object',
  required: ['!function'],
  additionalProperties: false,
  properties: { '!function': { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*\\.[A-Za-z_][A-Za-z0-9_]*$' } },
} as const;
const relativeDataFile = { type: 'string', pattern: '^(?!/)(?!.*\\.\\.)[A-Za-z0-9_./-]+\\.jsonl$' } as const;

const taskProperties = {
  task: { type: 'string', pattern: HARNESS_NAME_PATTERN },
  task_alias: { type: 'string', minLength: 1 },
  include: { type: 'string', pattern: '^_[A-Za-z0-9_-]+_yaml$' },
  custom_dataset: functionRef,
  dataset_kwargs: {
    type: 'object',
    required: ['data_files'],
    additionalProperties: false,
    properties: {
      data_files: {
        type: 'object',
        required: ['test'],
        additionalProperties: false,
        properties: { test: relativeDataFile, fewshot: relativeDataFile },
      },
    },
  },
  test_split: { const: 'test' },
  fewshot_split: { const: 'fewshot' },
  output_type: { enum: ['multiple_choice', 'generate_until'] },
  doc_to_text: columnName,
  doc_to_target: columnName,
  doc_to_choice: columnName,
  target_delimiter: { type: 'string' },
  fewshot_delimiter: { type: 'string', minLength: 1 },
  num_fewshot: { type: 'integer', minimum: 0 },
  fewshot_config: {
    type: 'object',
    required: ['sampler', 'split', 'doc_to_target'],
    additionalProperties: false,
    properties: { sampler: { const: 'first_n' }, split: { const: 'fewshot' }, doc_to_target: columnName },
  },
  generation_kwargs: {
    type: 'object',
    required: ['until', 'max_gen_toks', 'do_sample', 'temperature'],
    additionalProperties: false,
    properties: {
      until: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
      max_gen_toks: { type: 'integer', minimum: 1 },
      do_sample: { const: false },
      temperature: { type: 'number', minimum: 0 },
    },
  },
  filter_list: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['name', 'filter'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' },
        filter: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['function'],
            additionalProperties: false,
            properties: { function: { enum: ['custom', 'take_first'] }, filter_fn: functionRef },
          },
        },
      },
    },
  },
  process_results: functionRef,
  metric_list: {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      // The harness crashes on an unregistered metric without an aggregation: always both.
      required: ['metric', 'aggregation', 'higher_is_better'],
      additionalProperties: false,
      properties: {
        metric: { oneOf: [{ type: 'string', pattern: '^[A-Za-z0-9_]+$' }, functionRef] },
        aggregation: { const: 'mean' },
        higher_is_better: { type: 'boolean' },
        ignore_case: { type: 'boolean' },
        ignore_punctuation: { type: 'boolean' },
        ignore_numbers: { type: 'boolean' },
      },
    },
  },
  metadata: {
    type: 'object',
    required: ['version'],
    properties: { version: { type: 'string', minLength: 1 } },
  },
} as const;

/** One file on its own (an include base or a task file that relies on it). */
export const taskFileSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://aptpace.dev/schema/harness-task-file-1.json',
  title: 'lm-eval TaskConfig subset emitted by aptpace (one YAML file)',
  type: 'object',
  additionalProperties: false,
  properties: taskProperties,
} as const;

/** A task after `include:` is merged: everything the harness needs must be present. */
export const mergedTaskSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://aptpace.dev/schema/harness-task-1.json',
  title: 'lm-eval TaskConfig subset emitted by aptpace (after include)',
  type: 'object',
  additionalProperties: false,
  required: ['task', 'custom_dataset', 'dataset_kwargs', 'test_split', 'output_type', 'doc_to_text', 'doc_to_target', 'target_delimiter', 'num_fewshot', 'metric_list', 'metadata'],
  properties: { ...taskProperties, include: false },
  allOf: [
    { if: { properties: { output_type: { const: 'multiple_choice' } } }, then: { required: ['doc_to_choice'], properties: { generation_kwargs: false, filter_list: false, process_results: false } } },
    { if: { properties: { output_type: { const: 'generate_until' } } }, then: { required: ['generation_kwargs', 'filter_list'], properties: { doc_to_choice: false } } },
    { if: { required: ['fewshot_split'] }, then: { required: ['fewshot_config'] } },
  ],
} as const;

export const groupSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://aptpace.dev/schema/harness-group-1.json',
  title: 'lm-eval GroupConfig subset emitted by aptpace',
  type: 'object',
  additionalProperties: false,
  required: ['group', 'task', 'aggregate_metric_list', 'metadata'],
  properties: {
    group: { type: 'string', pattern: HARNESS_NAME_PATTERN },
    group_alias: { type: 'string', minLength: 1 },
    task: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', pattern: HARNESS_NAME_PATTERN } },
    aggregate_metric_list: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        // Both defaults flipped in 0.4.12: state them so every version aggregates alike.
        required: ['metric', 'aggregation', 'weight_by_size', 'filter_list'],
        additionalProperties: false,
        properties: {
          metric: { oneOf: [{ type: 'string', pattern: '^[A-Za-z0-9_]+$' }, functionRef] },
          aggregation: { const: 'mean' },
          weight_by_size: { type: 'boolean' },
          filter_list: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^[A-Za-z0-9_-]+$' } },
        },
      },
    },
    metadata: { type: 'object', required: ['version'], properties: { version: { type: 'string', minLength: 1 } } },
  },
} as const;

export type SchemaName = 'task-file' | 'task' | 'group';
export const SCHEMAS = { 'task-file': taskFileSchema, task: mergedTaskSchema, group: groupSchema } as const satisfies Record<SchemaName, object>;
