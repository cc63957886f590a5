/**
 * JSON Schema (2020-12) of one canonical trajectory, the contract behind `types.ts`.
 * Objects are closed (`additionalProperties: false`) so a typo is an error, not silent data
 * loss; `extra`, `action.args` and tool `parameters` stay open because sources vary.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Finding, FindingPath } from '../kernel/findings.js';
import { trajFinding } from './findings.js';
import { isCertainlyValidTrajectory } from './schema-fast.js';
import { DOMAINS, TRAJECTORY_SCHEMA_VERSION } from './types.js';

const nullableString = { type: ['string', 'null'] };
const nullableNumber = { type: ['number', 'null'] };

export const trajectorySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://aptpace.dev/schema/trajectory-1.json',
  title: 'aptpace canonical trajectory (traj/1)',
  type: 'object',
  additionalProperties: false,
  required: ['schema_version', 'traj_id', 'domain', 'source', 'task', 'environment', 'agent', 'steps', 'outcome', 'metrics'],
  properties: {
    schema_version: { const: TRAJECTORY_SCHEMA_VERSION },
    traj_id: { type: 'string', minLength: 1 },
    domain: { enum: [...DOMAINS] },
    source: {
      type: 'object',
      additionalProperties: false,
      required: ['framework', 'format', 'path', 'license'],
      properties: {
        framework: { type: 'string', minLength: 1 },
        format: { type: 'string', minLength: 1 },
        path: { type: 'string' },
        line: { type: ['integer', 'null'], minimum: 1 },
        repo: nullableString,
        commit: nullableString,
        license: { type: 'string' },
      },
    },
    task: {
      type: 'object',
      additionalProperties: false,
      required: ['instance_id', 'goal', 'language'],
      properties: {
        instance_id: { type: 'string', minLength: 1 },
        goal: { type: 'string' },
        language: { type: 'string', minLength: 2 },
        code_language: nullableString,
        gold_answer: nullableString,
        gold_patch: nullableString,
        gold_test_patch: nullableString,
      },
    },
    environment: {
      type: 'object',
      additionalProperties: false,
      required: ['tools'],
      properties: {
        repo: nullableString,
        base_commit: nullableString,
        workdir: nullableString,
        image: nullableString,
        tools: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['name'],
            properties: {
              name: { type: 'string', minLength: 1 },
              description: nullableString,
              parameters: { type: ['object', 'null'] },
            },
          },
        },
      },
    },
    agent: {
      type: 'object',
      additionalProperties: false,
      properties: { model: nullableString, agent_class: nullableString, system_prompt: nullableString },
    },
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'thought', 'plan', 'action', 'observation'],
        properties: {
          index: { type: 'integer', minimum: 0 },
          thought: nullableString,
          plan: nullableString,
          action: {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'tool', 'args', 'text'],
            properties: {
              kind: { enum: ['shell', 'tool_call', 'code', 'message', 'finish', 'llm_call'] },
              tool: nullableString,
              args: { type: 'object' },
              // A single line: next-action questions match it exactly.
              text: { type: 'string', minLength: 1, pattern: '^[^\\n\\r]*$' },
              raw: nullableString,
            },
          },
          observation: nullableString,
          obs_meta: {
            type: ['object', 'null'],
            additionalProperties: false,
            properties: { exit_code: { type: ['integer', 'null'] }, ok: { type: ['boolean', 'null'] } },
          },
          stage: nullableString,
          timestamp: nullableString,
        },
      },
    },
    outcome: {
      type: 'object',
      additionalProperties: false,
      required: ['success', 'success_source'],
      properties: {
        exit_status: nullableString,
        submission: nullableString,
        success: { type: ['boolean', 'null'] },
        success_source: { enum: ['harness_report', 'dataset_label', 'answer_match', 'benchmark_construction', 'self_report', 'unknown'] },
        success_evidence: nullableString,
        self_report: nullableString,
      },
      // Evidence-backed sources must carry a verdict; `unknown` must not claim one.
      allOf: [
        {
          if: { properties: { success_source: { const: 'unknown' } } },
          then: { properties: { success: { type: 'null' } } },
        },
        {
          if: { properties: { success_source: { enum: ['harness_report', 'dataset_label', 'answer_match', 'benchmark_construction'] } } },
          then: { properties: { success: { type: 'boolean' } } },
        },
      ],
    },
    metrics: {
      type: 'object',
      additionalProperties: false,
      properties: {
        cost_usd: nullableNumber,
        api_calls: nullableNumber,
        tokens_in: nullableNumber,
        tokens_out: nullableNumber,
        wall_s: nullableNumber,
      },
    },
    extra: { type: 'object' },
  },
} as const;

let compiled: ValidateFunction | undefined;
/** The compiled JSON Schema validator (compiled on first use). */
export function schemaValidator(): ValidateFunction {
  compiled ??= new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(trajectorySchema);
  return compiled;
}

/** `/steps/3/action/text` → `steps[3].action.text` */
export function pointerToField(pointer: string): string {
  let out = '';
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

function describe(error: ErrorObject): { field: string; detail: string; expected?: string } {
  const field = pointerToField(error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: field ? `${field}.${String(p.missingProperty)}` : String(p.missingProperty), detail: 'required field is missing' };
    case 'additionalProperties':
      return { field: field ? `${field}.${String(p.additionalProperty)}` : String(p.additionalProperty), detail: 'unexpected field' };
    case 'type':
      return { field, detail: 'wrong type', expected: String(p.type) };
    case 'enum':
      return { field, detail: 'value not allowed', expected: (p.allowedValues as unknown[]).map(String).join(' | ') };
    case 'const':
      return { field, detail: 'wrong value', expected: JSON.stringify(p.allowedValue) };
    default:
      return { field, detail: error.message ?? error.keyword };
  }
}

/** Checks one trajectory against the schema; each violation is one finding with its field. */
export function validateTrajectory(trajectory: unknown, where: FindingPath = {}): Finding[] {
  // The hand-written check accepts only what the schema accepts; ajv explains the rest.
  if (isCertainlyValidTrajectory(trajectory)) return [];
  const validate = schemaValidator();
  if (validate(trajectory)) return [];
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const error of validate.errors ?? []) {
    if (error.keyword === 'if') continue; // its `then` branch error says what is wrong
    const d = describe(error);
    const key = `${d.field}|${d.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(trajFinding('traj-schema-invalid', { ...where, field: d.field || undefined }, { detail: d.detail, expected: d.expected }));
  }
  return findings;
}
