/**
 * JSON Schema (2020-12) of one built question: the contract between the builder, the
 * review/audit tools and the emitter. `types.ts` mirrors it; `validateQuestion` enforces it.
 */
import { QUESTION_KINDS } from './kinds.js';
import { QUESTION_SCHEMA_VERSION } from './types.js';

const harnessName = '^[A-Za-z0-9_]+$';

const base = {
  schema_version: { const: QUESTION_SCHEMA_VERSION },
  id: { type: 'string', pattern: '^[A-Za-z0-9_.:-]+$', minLength: 1, maxLength: 200 },
  kind: { enum: [...QUESTION_KINDS] },
  task: { type: 'string', pattern: harnessName, minLength: 1, maxLength: 120 },
  // Non-empty is checked in validateQuestion (cheaper than ajv's code-point count on long prompts).
  prompt: { type: 'string' },
  prompt_tokens: { type: 'integer', minimum: 0 },
  length_bucket: { enum: ['<=4K', '4-16K', '16-32K', '>32K'] },
  truncated: { type: 'boolean' },
  split: { enum: ['test', 'fewshot'] },
  provenance: {
    type: 'object',
    required: ['traj_id', 'source_path', 'step', 'framework'],
    additionalProperties: false,
    properties: {
      traj_id: { type: 'string', minLength: 1 },
      source_path: { type: 'string' },
      source_line: { type: ['integer', 'null'], minimum: 1 },
      step: { type: ['integer', 'null'], minimum: 0 },
      framework: { type: 'string' },
      instance_id: { type: 'string' },
      source_group: { type: 'string', minLength: 1 },
    },
  },
  build: {
    type: 'object',
    required: ['seed', 'template'],
    additionalProperties: false,
    properties: {
      seed: { type: 'string' },
      operators: { type: 'array', items: { type: 'string' } },
      choice_sources: { type: 'array', items: { type: 'string' } },
      template: { type: 'string', minLength: 1 },
      tokenizer: { type: 'string' },
      budget_tokens: { type: 'integer', minimum: 1 },
      fewshot_ids: { type: 'array', items: { type: 'string' } },
      llm_model: { type: 'string' },
      // Tool names the prompt offers the agent (declared tools, or tools seen before the anchor).
      offered_tools: { type: 'array', items: { type: 'string' } },
      // Aligned with `choices`: a one-line reason each distractor is wrong ('' for the gold).
      choice_reasons: { type: 'array', items: { type: 'string' } },
      // Content hash of the corpus the distractors were drawn from: distractors may change when
      // the corpus changes, ids do not.
      corpus: { type: 'string' },
    },
  },
  answer_stem: { type: 'string' },
  // Language of the question's own text (instructions, trajectory, options).
  language: { enum: ['en', 'zh'] },
  // Offset (UTF-16 code units) into `prompt` where the scored question segment begins: after
  // the instructions, the shared tool list and every few-shot example. Audits read options
  // against this segment only, so shots cannot saturate overlap rules.
  question_start: { type: 'integer', minimum: 0 },
} as const;

const commonRequired = [
  'schema_version', 'id', 'kind', 'task', 'format', 'prompt', 'prompt_tokens',
  'length_bucket', 'truncated', 'provenance', 'build', 'answer_stem',
];

export const questionSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://aptpace.dev/schema/question-1.json',
  title: 'aptpace question (question/1)',
  type: 'object',
  required: ['format'],
  properties: { format: { enum: ['mcq', 'completion', 'multi_select'] } },
  oneOf: [
    {
      type: 'object',
      required: [...commonRequired, 'choices', 'gold'],
      additionalProperties: false,
      properties: {
        ...base,
        format: { const: 'mcq' },
        choices: { type: 'array', minItems: 2, maxItems: 26, items: { type: 'string', minLength: 1 } },
        gold: { type: 'integer', minimum: 0 },
      },
    },
    {
      type: 'object',
      required: [...commonRequired, 'targets', 'metric', 'stop'],
      additionalProperties: false,
      properties: {
        ...base,
        format: { const: 'completion' },
        targets: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
        metric: { enum: ['exact_match', 'rouge', 'exact_match+rouge', 'tool_call'] },
        stop: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
    {
      // Multi-select: every option that applies; golds are checked against choices in validateQuestion.
      type: 'object',
      required: [...commonRequired, 'choices', 'golds', 'targets', 'metric', 'stop'],
      additionalProperties: false,
      properties: {
        ...base,
        format: { const: 'multi_select' },
        choices: { type: 'array', minItems: 2, maxItems: 99, items: { type: 'string', minLength: 1 } },
        golds: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } },
        targets: { type: 'array', minItems: 1, maxItems: 1, items: { type: 'string', minLength: 1 } },
        metric: { const: 'set_match+f1' },
        stop: { type: 'array', items: { type: 'string', minLength: 1 } },
      },
    },
  ],
} as const;
