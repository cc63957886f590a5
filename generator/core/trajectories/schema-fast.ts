/**
 * A hand-written check of the traj/1 schema for the common case: a trajectory the readers built
 * correctly. It answers `true` only when the JSON Schema in schema.ts would accept the value,
 * so `validateTrajectory` can skip ajv (and its ~0.5 s compile) for valid records and still ask
 * ajv for the exact errors of the rest. test/trajectories/schema-fast.test.ts checks that both
 * agree on every fixture and on thousands of mutations of them.
 */
import { DOMAINS, TRAJECTORY_SCHEMA_VERSION } from './types.js';

type Obj = Record<string, unknown>;

const DOMAIN_SET: ReadonlySet<string> = new Set(DOMAINS);
const ACTION_KINDS = new Set(['shell', 'tool_call', 'code', 'message', 'finish', 'llm_call']);
const SUCCESS_SOURCES = new Set(['harness_report', 'dataset_label', 'answer_match', 'benchmark_construction', 'self_report', 'unknown']);
const EVIDENCE_SOURCES = new Set(['harness_report', 'dataset_label', 'answer_match', 'benchmark_construction']);

const TOP_KEYS = new Set(['schema_version', 'traj_id', 'domain', 'source', 'task', 'environment', 'agent', 'steps', 'outcome', 'metrics', 'extra']);
const SOURCE_KEYS = new Set(['framework', 'format', 'path', 'line', 'repo', 'commit', 'license']);
const TASK_KEYS = new Set(['instance_id', 'goal', 'language', 'code_language', 'gold_answer', 'gold_patch', 'gold_test_patch']);
const ENVIRONMENT_KEYS = new Set(['repo', 'base_commit', 'workdir', 'image', 'tools']);
const TOOL_KEYS = new Set(['name', 'description', 'parameters']);
const AGENT_KEYS = new Set(['model', 'agent_class', 'system_prompt']);
const STEP_KEYS = new Set(['index', 'thought', 'plan', 'action', 'observation', 'obs_meta', 'stage', 'timestamp']);
const ACTION_KEYS = new Set(['kind', 'tool', 'args', 'text', 'raw']);
const OBS_META_KEYS = new Set(['exit_code', 'ok']);
const OUTCOME_KEYS = new Set(['exit_status', 'submission', 'success', 'success_source', 'success_evidence', 'self_report']);
const METRICS_KEYS = new Set(['cost_usd', 'api_calls', 'tokens_in', 'tokens_out', 'wall_s']);

/** JSON Schema `type: object` as ajv tests it. */
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNullableString = (v: unknown) => v === null || typeof v === 'string';
const isInteger = (v: unknown): v is number => Number.isInteger(v);

/**
 * Every key is allowed. As in ajv's generated code, an optional property whose value is
 * `undefined` counts as absent, and a required one as missing.
 */
function onlyKeys(o: Obj, allowed: ReadonlySet<string>): boolean {
  for (const key in o) if (!allowed.has(key)) return false;
  return true;
}

/** Optional nullable-string properties: absent, null or a string. */
function optionalStrings(o: Obj, keys: readonly string[]): boolean {
  for (const key of keys) if (o[key] !== undefined && !isNullableString(o[key])) return false;
  return true;
}

/** JSON Schema `minLength` counts code points, not UTF-16 units. */
function hasCodePoints(s: string, min: number): boolean {
  if (s.length >= 2 * min) return true;
  let count = 0;
  for (const _ of s) if (++count >= min) return true;
  return false;
}

export function isCertainlyValidTrajectory(t: unknown): boolean {
  if (!isObject(t) || !onlyKeys(t, TOP_KEYS)) return false;
  if (t.schema_version !== TRAJECTORY_SCHEMA_VERSION) return false;
  if (!isString(t.traj_id) || !t.traj_id.length) return false;
  if (!DOMAIN_SET.has(t.domain as string)) return false;
  if (t.extra !== undefined && !isObject(t.extra)) return false;

  const s = t.source;
  if (!isObject(s) || !onlyKeys(s, SOURCE_KEYS)) return false;
  if (!isString(s.framework) || !s.framework.length || !isString(s.format) || !s.format.length) return false;
  if (!isString(s.path) || !isString(s.license)) return false;
  if (s.line !== undefined && s.line !== null && !(isInteger(s.line) && s.line >= 1)) return false;
  if (!optionalStrings(s, ['repo', 'commit'])) return false;

  const task = t.task;
  if (!isObject(task) || !onlyKeys(task, TASK_KEYS)) return false;
  if (!isString(task.instance_id) || !task.instance_id.length || !isString(task.goal)) return false;
  if (!isString(task.language) || !hasCodePoints(task.language, 2)) return false;
  if (!optionalStrings(task, ['code_language', 'gold_answer', 'gold_patch', 'gold_test_patch'])) return false;

  const env = t.environment;
  if (!isObject(env) || !onlyKeys(env, ENVIRONMENT_KEYS)) return false;
  if (!optionalStrings(env, ['repo', 'base_commit', 'workdir', 'image'])) return false;
  if (!Array.isArray(env.tools)) return false;
  for (const tool of env.tools) {
    if (!isObject(tool) || !onlyKeys(tool, TOOL_KEYS)) return false;
    if (!isString(tool.name) || !tool.name.length) return false;
    if (tool.description !== undefined && !isNullableString(tool.description)) return false;
    if (tool.parameters !== undefined && tool.parameters !== null && !isObject(tool.parameters)) return false;
  }

  const agent = t.agent;
  if (!isObject(agent) || !onlyKeys(agent, AGENT_KEYS) || !optionalStrings(agent, ['model', 'agent_class', 'system_prompt'])) return false;

  const steps = t.steps;
  if (!Array.isArray(steps) || !steps.length) return false;
  for (const step of steps) if (!isValidStep(step)) return false;

  const o = t.outcome;
  if (!isObject(o) || !onlyKeys(o, OUTCOME_KEYS)) return false;
  if (!(o.success === null || typeof o.success === 'boolean')) return false;
  if (!SUCCESS_SOURCES.has(o.success_source as string)) return false;
  if (o.success_source === 'unknown' && o.success !== null) return false;
  if (EVIDENCE_SOURCES.has(o.success_source as string) && typeof o.success !== 'boolean') return false;
  if (!optionalStrings(o, ['exit_status', 'submission', 'success_evidence', 'self_report'])) return false;

  const m = t.metrics;
  if (!isObject(m) || !onlyKeys(m, METRICS_KEYS)) return false;
  for (const key in m) if (m[key] !== undefined && m[key] !== null && !Number.isFinite(m[key])) return false;
  return true;
}

function isValidStep(step: unknown): boolean {
  if (!isObject(step) || !onlyKeys(step, STEP_KEYS)) return false;
  if (!isInteger(step.index) || step.index < 0) return false;
  if (!isNullableString(step.thought) || !isNullableString(step.plan) || !isNullableString(step.observation)) return false;
  if (!optionalStrings(step, ['stage', 'timestamp'])) return false;
  if (step.obs_meta !== undefined && step.obs_meta !== null) {
    const meta = step.obs_meta;
    if (!isObject(meta) || !onlyKeys(meta, OBS_META_KEYS)) return false;
    if (meta.exit_code !== undefined && meta.exit_code !== null && !isInteger(meta.exit_code)) return false;
    if (meta.ok !== undefined && meta.ok !== null && typeof meta.ok !== 'boolean') return false;
  }
  const a = step.action;
  if (!isObject(a) || !onlyKeys(a, ACTION_KEYS)) return false;
  if (!ACTION_KINDS.has(a.kind as string)) return false;
  if (!isNullableString(a.tool)) return false;
  if (!isObject(a.args)) return false;
  if (!isString(a.text) || !a.text.length || /[\n\r]/.test(a.text)) return false;
  if (a.raw !== undefined && !isNullableString(a.raw)) return false;
  return true;
}
