/**
 * What every format reader implements, and the shared builder that turns a reader's step
 * drafts into canonical steps (indexes, one-line action text, derived plans).
 */
import { parseJson } from '../../kernel/json.js';
import type { Finding, FindingPath } from '../../kernel/findings.js';
import { trajFinding } from '../findings.js';
import { canonicalActionText, derivePlan, detectTrajectoryLanguage, firstLine, isShellTool, looksLikeCtf, oneLine } from '../text.js';
import { TRAJECTORY_SCHEMA_VERSION, type ActionKind, type Domain, type Step, type ToolSpec, type Trajectory } from '../types.js';

export interface RecordContext {
  /** File as the user named it. */
  file: string;
  /** 1-based line for JSONL records. */
  line?: number;
  /** 0-based index for records inside a JSON array document. */
  record?: number;
  /** File name without directories and trajectory extensions: the fallback instance id. */
  fileStem: string;
  /** Short content hash of the raw record: distinguishes runs of the same instance. */
  contentHash: string;
  /** Licence to record in `source.license` (from --license; `unknown` otherwise). */
  license: string;
  /** Readers push warnings and the errors that explain a rejection here. */
  findings: Finding[];
}

export function at(ctx: RecordContext, field?: string): FindingPath {
  const path: FindingPath = { file: ctx.file };
  if (ctx.line !== undefined) path.line = ctx.line;
  if (ctx.record !== undefined) path.record = ctx.record;
  if (field) path.field = field;
  return path;
}

export interface FormatReader {
  title: string;
  /** `source.framework` of what it reads. */
  framework: string;
  /** A whole JSON document, one JSONL record / element of a JSON array, or both. */
  containers: ReadonlyArray<'document' | 'record'>;
  /** Cheap structural test; must not throw. */
  detect(value: unknown): boolean;
  /** Returns the trajectory, or undefined after pushing the error findings that reject it. */
  read(value: unknown, ctx: RecordContext): Trajectory | undefined;
}

export interface StepDraft {
  thought: string | null;
  plan?: string | null;
  kind: ActionKind;
  tool: string | null;
  args: Record<string, unknown>;
  raw?: string | null;
  /** Source-provided rendering; its first line becomes `action.text` when given. */
  text?: string | null;
  observation: string | null;
  exitCode?: number | null;
  ok?: boolean | null;
  timestamp?: string | null;
  stage?: string | null;
}

export function kindForTool(tool: string | null, finishTools: ReadonlySet<string> = FINISH_TOOLS): ActionKind {
  if (tool && finishTools.has(tool)) return 'finish';
  if (isShellTool(tool)) return 'shell';
  return 'tool_call';
}
export const FINISH_TOOLS: ReadonlySet<string> = new Set(['submit', 'finish', 'task_complete', 'final_answer', 'exit']);

export function buildSteps(drafts: StepDraft[]): Step[] {
  return drafts.map((d, index) => {
    const text = (d.text ? firstLine(d.text) : '') || canonicalActionText(d.kind, d.tool, d.args, d.raw);
    const thought = d.thought && d.thought.trim() ? d.thought.trim() : null;
    const step: Step = {
      index,
      thought,
      plan: d.plan && d.plan.trim() ? oneLine(d.plan) : derivePlan(thought, d.kind, d.tool, text),
      action: { kind: d.kind, tool: d.tool, args: d.args, text, raw: d.raw ?? null },
      observation: d.observation,
    };
    if (d.exitCode !== undefined || d.ok !== undefined) step.obs_meta = { exit_code: d.exitCode ?? null, ok: d.ok ?? null };
    if (d.stage) step.stage = d.stage;
    if (d.timestamp) step.timestamp = d.timestamp;
    return step;
  });
}

/** Tools seen in the steps, with a parameter schema inferred from the argument types used. */
export function inferTools(steps: Step[]): ToolSpec[] {
  const byName = new Map<string, Map<string, Set<string>>>();
  for (const s of steps) {
    const tool = s.action.tool;
    if (!tool || s.action.kind === 'message') continue;
    const props = byName.get(tool) ?? new Map<string, Set<string>>();
    byName.set(tool, props);
    for (const [k, v] of Object.entries(s.action.args)) {
      if (k === 'raw') continue;
      const types = props.get(k) ?? new Set<string>();
      types.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);
      props.set(k, types);
    }
  }
  return [...byName.keys()].sort().map((name) => {
    const props = byName.get(name)!;
    const properties: Record<string, unknown> = {};
    for (const key of [...props.keys()].sort()) {
      const types = [...props.get(key)!].sort();
      properties[key] = { type: types.length === 1 ? types[0] : types };
    }
    return { name, description: null, parameters: props.size ? { type: 'object', properties, 'x-inferred': true } : null };
  });
}

export interface TrajectoryDraft {
  framework: string;
  format: string;
  domain: Domain;
  instanceId: string;
  runId?: string | null;
  goal: string;
  language?: string | null;
  steps: StepDraft[];
  tools?: ToolSpec[] | null;
  task?: Partial<Trajectory['task']>;
  environment?: Omit<Partial<Trajectory['environment']>, 'tools'>;
  agent?: Trajectory['agent'];
  outcome?: Partial<Trajectory['outcome']>;
  metrics?: Trajectory['metrics'];
  sourceRepo?: string | null;
  extra?: Record<string, unknown>;
}

export function buildTrajectory(d: TrajectoryDraft, ctx: RecordContext): Trajectory {
  const steps = buildSteps(d.steps);
  const run = d.runId && d.runId.trim() ? d.runId.trim() : ctx.contentHash;
  const outcome: Trajectory['outcome'] = {
    exit_status: d.outcome?.exit_status ?? null,
    submission: d.outcome?.submission ?? null,
    success: d.outcome?.success ?? null,
    success_source: d.outcome?.success_source ?? 'unknown',
    success_evidence: d.outcome?.success_evidence ?? null,
    self_report: d.outcome?.self_report ?? null,
  };
  const t: Trajectory = {
    schema_version: TRAJECTORY_SCHEMA_VERSION,
    traj_id: `${d.framework}:${d.instanceId}:${run}`,
    // A security challenge run by a SWE agent is not a software fix: its shots must differ.
    domain: (d.domain === 'swe' || d.domain === 'other') && looksLikeCtf(d.goal) ? 'ctf' : d.domain,
    source: {
      framework: d.framework,
      format: d.format,
      path: ctx.file,
      line: ctx.line ?? null,
      repo: d.sourceRepo ?? null,
      commit: null,
      license: ctx.license,
    },
    task: {
      instance_id: d.instanceId,
      goal: d.goal,
      language: d.language ?? detectTrajectoryLanguage(d.goal, steps.slice(0, 8).map((s) => s.thought)),
      code_language: d.task?.code_language ?? null,
      gold_answer: d.task?.gold_answer ?? null,
      gold_patch: d.task?.gold_patch ?? null,
      gold_test_patch: d.task?.gold_test_patch ?? null,
    },
    environment: {
      repo: d.environment?.repo ?? null,
      base_commit: d.environment?.base_commit ?? null,
      workdir: d.environment?.workdir ?? null,
      image: d.environment?.image ?? null,
      tools: d.tools && d.tools.length ? d.tools : inferTools(steps),
    },
    agent: { model: d.agent?.model ?? null, agent_class: d.agent?.agent_class ?? null, system_prompt: d.agent?.system_prompt ?? null },
    steps,
    outcome,
    metrics: {
      cost_usd: d.metrics?.cost_usd ?? null,
      api_calls: d.metrics?.api_calls ?? null,
      tokens_in: d.metrics?.tokens_in ?? null,
      tokens_out: d.metrics?.tokens_out ?? null,
      wall_s: d.metrics?.wall_s ?? null,
    },
  };
  if (ctx.record !== undefined) t.extra = { ...(t.extra ?? {}), record: ctx.record };
  if (d.extra && Object.keys(d.extra).length) t.extra = { ...(t.extra ?? {}), ...d.extra };
  return t;
}

/** Parses an OpenAI-style `arguments` string; anything but a JSON object is kept under `raw`. */
export function parseToolArguments(value: unknown, tool: string, ctx: RecordContext, field: string): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== 'string' || !value.trim()) return {};
  let detail: string;
  try {
    const parsed = parseJson(value) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    detail = `a JSON ${Array.isArray(parsed) ? 'array' : typeof parsed}`;
  } catch (err) {
    detail = (err as Error).message;
  }
  ctx.findings.push(trajFinding('traj-bad-tool-arguments', at(ctx, field), { tool, detail }));
  return { raw: value };
}
