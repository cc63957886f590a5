/**
 * OpenHands evaluation rows (`output.jsonl`): `{instance_id, instruction, instance, metadata,
 * history[events], metrics, test_result{git_patch}}`. A verdict inside the row
 * (`report.resolved` / `test_result.report.resolved` from the SWE-bench evaluation step) is a
 * harness report; a top-level `resolved` (SWE-Gym style datasets) is a dataset label.
 */
import { trajFinding } from '../findings.js';
import { extractGoal, isRecord, num, repoFromInstanceId, str, typeName } from '../text.js';
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
    const instance = isRecord(row.instance) ? row.instance : {};
    const metadata = isRecord(row.metadata) ? row.metadata : {};
    const llm = isRecord(metadata.llm_config) ? metadata.llm_config : {};
    const testResult = isRecord(row.test_result) ? row.test_result : {};
    const metrics = isRecord(row.metrics) ? row.metrics : {};
    const usage = isRecord(metrics.accumulated_token_usage) ? metrics.accumulated_token_usage : {};
    const goal = str(instance.problem_statement) ?? (str(row.instruction) ? extractGoal(str(row.instruction)!) : null) ?? converted.goal ?? '';
    const repo = str(instance.repo) ?? repoFromInstanceId(instanceId);
    const found = verdict(row, ctx.line !== undefined ? `${ctx.file}:${ctx.line}` : ctx.file);
    return buildTrajectory(
      {
        framework: 'openhands',
        format: 'openhands-output-jsonl',
        domain: 'swe',
        instanceId,
        runId: str(row.run_id),
        goal,
        steps: converted.steps,
        tools: converted.tools,
        task: { code_language: str(instance.language) ?? str(metadata.language) ?? null },
        environment: { repo, base_commit: str(instance.base_commit) ?? (isRecord(instance.base) ? str(instance.base.sha) : null) },
        agent: { model: str(llm.model) ?? converted.model, agent_class: str(metadata.agent_class), system_prompt: converted.systemPrompt },
        outcome: {
          exit_status: str(row.error) ? 'error' : converted.finished ? 'finish' : null,
          submission: str(testResult.git_patch) ?? converted.finalAnswer,
          self_report: converted.selfReport,
          ...(found ?? {}),
        },
        metrics: {
          cost_usd: num(metrics.accumulated_cost) ?? converted.metrics.cost_usd,
          tokens_in: num(usage.prompt_tokens) ?? converted.metrics.tokens_in,
          tokens_out: num(usage.completion_tokens) ?? converted.metrics.tokens_out,
        },
        extra: str(row.error) ? { error: str(row.error) } : undefined,
      },
      ctx,
    );
  },
};
