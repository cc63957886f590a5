/**
 * OpenHands evaluation rows (`output.jsonl`): `{instance_id, instruction, instance, metadata,
 * history[events], metrics, test_result{git_patch}}`. A verdict inside the row
 * (`report.resolved` / `test_result.report.resolved` from the SWE-bench evaluation step) is a
 * harness report; a top-level `resolved` (SWE-Gym style datasets) is a dataset label.
 */
import { trajFinding } from '../findings.js';
import { extractGoal, isRecord, repoFromInstanceId, typeName } from '../text.js';
import { fieldsOf } from './fields.js';
import type { Trajectory } from '../types.js';
import { at, buildTrajectory, type FormatReader } from './reader.js';
import { convertEvents } from './openhands-events.js';

type Json = Record<string, unknown>;

function verdict(row: Json, file: string): Pick<Trajectory['outcome'], 'success' | 'success_source' | 'success_evidence'> | null {
  const testResult = isRecord(row.test_result) ? row.test_result : {};
  for (const report of [row.report, testResult.report]) {
    if (isRecord(report) && typeof report.resolved === 'boolean') return { success: report.resolved, success_source: 'harness_report', success_evidence: `${file}: report.resolved` };
  }
  if (typeof row.resolved === 'boolean') return { success: row.resolved, success_source: 'dataset_label', success_evidence: `${file}: resolved` };
  return null;
}

export const openhandsOutputReader: FormatReader = {
  title: 'OpenHands evaluation output row',
  framework: 'openhands',
  containers: ['record', 'document'],
  detect(v) {
    return isRecord(v) && Array.isArray(v.history) && ('instance_id' in v || 'instruction' in v) && v.history.some((e) => isRecord(e) && ('action' in e || 'observation' in e));
  },
  read(value, ctx) {
    const row = value as Json;
    if (row.instance_id === undefined) {
      ctx.findings.push(trajFinding('traj-missing-field', at(ctx, 'instance_id'), { expected: 'the instance id of the evaluated task' }));
      return undefined;
    }
    if (typeof row.instance_id !== 'string' && typeof row.instance_id !== 'number') {
      ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, 'instance_id'), { expected: 'a string instance id', actual: typeName(row.instance_id) }));
      return undefined;
    }
    const instanceId = String(row.instance_id);
    const converted = convertEvents(row.history as unknown[], ctx, 'history');
    if (!converted) return undefined;
    if (!converted.steps.length) {
      ctx.findings.push(trajFinding('traj-empty', at(ctx, 'history'), { detail: 'no agent actions among the events' }));
      return undefined;
    }
    // Every optional field through one typed reader: a wrong type is a warning naming it.
    const top = fieldsOf(ctx, row);
    const instance = top.obj('instance');
    const metadata = top.obj('metadata');
    const llm = metadata.obj('llm_config');
    const testResult = top.obj('test_result');
    const metrics = top.obj('metrics');
    const usage = metrics.obj('accumulated_token_usage');
    const instruction = top.str('instruction');
    const goal = instance.str('problem_statement') ?? (instruction ? extractGoal(instruction) : null) ?? converted.goal ?? '';
    const repo = instance.str('repo') ?? repoFromInstanceId(instanceId);
    const error = top.str('error');
    const patch = testResult.str('git_patch');
    const found = verdict(row, ctx.line !== undefined ? `${ctx.file}:${ctx.line}` : ctx.file);
    return buildTrajectory(
      {
        framework: 'openhands',
        format: 'openhands-output-jsonl',
        domain: 'swe',
        instanceId,
        runId: top.str('run_id'),
        goal,
        steps: converted.steps,
        tools: converted.tools,
        task: { code_language: instance.str('language') ?? metadata.str('language') ?? null },
        environment: { repo, base_commit: instance.str('base_commit') ?? instance.obj('base').str('sha') },
        agent: { model: llm.str('model') ?? converted.model, agent_class: metadata.str('agent_class'), system_prompt: converted.systemPrompt },
        outcome: {
          exit_status: error ? 'error' : converted.finished ? 'finish' : null,
          submission: patch ?? converted.finalAnswer,
          self_report: converted.selfReport,
          ...(found ?? {}),
        },
        metrics: {
          cost_usd: metrics.num('accumulated_cost') ?? converted.metrics.cost_usd,
          tokens_in: usage.num('prompt_tokens') ?? converted.metrics.tokens_in,
          tokens_out: usage.num('completion_tokens') ?? converted.metrics.tokens_out,
        },
        extra: error ? { error } : undefined,
      },
      ctx,
    );
  },
};
