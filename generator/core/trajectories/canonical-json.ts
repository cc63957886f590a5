/**
 * One canonical trajectory as one JSON line with sorted keys, byte-identical to
 * `stableStringify(t)` but about a third faster on large corpora: the closed objects of the
 * schema are rebuilt as literals whose keys are already in sorted order (no per-object
 * `Object.keys().sort()`, and V8 keeps them in fast mode for JSON.stringify); only the open
 * parts (`action.args`, tool `parameters`, `extra`) go through the generic key sort.
 *
 * Precondition: `t` passed `validateTrajectory`, so the closed objects hold no keys beyond the
 * schema's. test/trajectories/canonical-json.test.ts walks the schema and fails if a property is
 * added there but not here.
 */
import type { Step, ToolSpec, Trajectory } from './types.js';

export function trajectoryJson(t: Trajectory): string {
  return JSON.stringify(sortedTrajectory(t));
}

function sortedTrajectory(t: Trajectory): unknown {
  const { source: s, task, environment: env, agent, outcome: o, metrics: m } = t;
  return {
    agent: { agent_class: agent.agent_class, model: agent.model, system_prompt: agent.system_prompt },
    domain: t.domain,
    environment: { base_commit: env.base_commit, image: env.image, repo: env.repo, tools: env.tools.map(sortedTool), workdir: env.workdir },
    extra: t.extra === undefined ? undefined : sortOpen(t.extra),
    metrics: { api_calls: m.api_calls, cost_usd: m.cost_usd, tokens_in: m.tokens_in, tokens_out: m.tokens_out, wall_s: m.wall_s },
    outcome: {
      exit_status: o.exit_status,
      self_report: o.self_report,
      submission: o.submission,
      success: o.success,
      success_evidence: o.success_evidence,
      success_source: o.success_source,
    },
    schema_version: t.schema_version,
    source: { commit: s.commit, format: s.format, framework: s.framework, license: s.license, line: s.line, path: s.path, repo: s.repo },
    steps: t.steps.map(sortedStep),
    task: {
      code_language: task.code_language,
      goal: task.goal,
      gold_answer: task.gold_answer,
      gold_patch: task.gold_patch,
      gold_test_patch: task.gold_test_patch,
      instance_id: task.instance_id,
      language: task.language,
    },
    traj_id: t.traj_id,
  };
}

function sortedTool(tool: ToolSpec): unknown {
  return { description: tool.description, name: tool.name, parameters: tool.parameters == null ? tool.parameters : sortOpen(tool.parameters) };
}

function sortedStep(step: Step): unknown {
  const a = step.action;
  const meta = step.obs_meta;
  return {
    action: { args: sortOpen(a.args), kind: a.kind, raw: a.raw, text: a.text, tool: a.tool },
    index: step.index,
    obs_meta: meta == null ? meta : { exit_code: meta.exit_code, ok: meta.ok },
    observation: step.observation,
    plan: step.plan,
    stage: step.stage,
    thought: step.thought,
    timestamp: step.timestamp,
  };
}

/**
 * The generic recursive key sort, as stableStringify does it (including its treatment of
 * integer-like keys, which JS objects always enumerate first) so the bytes stay identical.
 */
function sortOpen(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(sortOpen);
  if (value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortOpen(v);
  }
  return out;
}
