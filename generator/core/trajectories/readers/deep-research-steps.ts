/**
 * Deep-research step lists `{planning, execution{name, args}, observation}` as released in
 * APTBench (InfoDeepSeek agents). A row is `{uuid, query, query_answer, answer, source,
 * trajectory}` where `trajectory` is a list or a JSON string of one. APTBench built these rows
 * from successful trajectories, so a row carrying APTBench's gold fields gets
 * `success_source: benchmark_construction`; a bare step list stays unknown.
 */
import { trajFinding } from '../findings.js';
import { isRecord, str, typeName } from '../text.js';
import type { ToolSpec } from '../types.js';
import { fieldsOf } from './fields.js';
import { at, buildTrajectory, FINISH_TOOLS, type FormatReader, type RecordContext, type StepDraft } from './reader.js';

type Json = Record<string, unknown>;

function isStepList(v: unknown): v is unknown[] {
  return Array.isArray(v) && v.length > 0 && v.every((s) => isRecord(s) && 'execution' in s && ('planning' in s || 'observation' in s));
}

function stepsOf(v: Json): unknown {
  if (typeof v.trajectory === 'string') {
    const t = v.trajectory.trimStart();
    if (!t.startsWith('[')) return v.trajectory;
    try {
      return JSON.parse(v.trajectory) as unknown;
    } catch {
      return v.trajectory;
    }
  }
  return v.trajectory ?? v.steps;
}

function toolSet(value: unknown): ToolSpec[] {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value) as unknown;
    } catch {
      // APTBench's plan rows list tools as numbered lines: `(1) {"name": …, "parameters": …}`.
      list = [...value.matchAll(/^\s*\(\d+\)\s*(\{.*\})\s*$/gm)].flatMap((m) => {
        try {
          return [JSON.parse(m[1]!) as unknown];
        } catch {
          return [];
        }
      });
    }
  }
  if (!Array.isArray(list)) return [];
  const tools: ToolSpec[] = [];
  for (const t of list) {
    const fn = isRecord(t) && isRecord(t.function) ? t.function : isRecord(t) ? t : undefined;
    if (fn && typeof fn.name === 'string') tools.push({ name: fn.name, description: str(fn.description), parameters: isRecord(fn.parameters) ? fn.parameters : null });
  }
  return tools;
}

function convertSteps(steps: unknown[], ctx: RecordContext, field: string): StepDraft[] | undefined {
  const drafts: StepDraft[] = [];
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (!isRecord(s)) {
      ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `${field}[${i}]`), { expected: 'an object {planning, execution, observation}', actual: typeName(s) }));
      return undefined;
    }
    const exec = s.execution;
    if (!isRecord(exec) || typeof exec.name !== 'string') {
      ctx.findings.push(
        trajFinding('traj-wrong-type', at(ctx, `${field}[${i}].execution${isRecord(exec) ? '.name' : ''}`), {
          expected: isRecord(exec) ? 'a string tool name' : 'an object {name, args}',
          actual: typeName(isRecord(exec) ? exec.name : exec),
        }),
      );
      return undefined;
    }
    if (exec.args !== undefined && exec.args !== null && !isRecord(exec.args)) {
      ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `${field}[${i}].execution.args`), { expected: 'an object', actual: typeName(exec.args) }));
      return undefined;
    }
    const planning = typeof s.planning === 'string' ? s.planning : null;
    const observation = typeof s.observation === 'string' ? s.observation : s.observation == null ? null : JSON.stringify(s.observation);
    drafts.push({
      thought: planning,
      plan: planning,
      kind: FINISH_TOOLS.has(exec.name) ? 'finish' : 'tool_call',
      tool: exec.name,
      args: isRecord(exec.args) ? exec.args : {},
      observation,
    });
  }
  return drafts;
}

export const deepResearchStepsReader: FormatReader = {
  title: 'deep-research step list (APTBench / InfoDeepSeek)',
  framework: 'infodeepseek',
  containers: ['record', 'document'],
  detect(v) {
    if (isStepList(v)) return true;
    if (!isRecord(v)) return false;
    // A JSON-string trajectory is recognised without parsing it (read parses it once); an
    // unparseable one is still this format and is reported as malformed by read.
    if (typeof v.trajectory === 'string') return /^\s*\[/.test(v.trajectory) && /"execution"\s*:/.test(v.trajectory) && ('query' in v || 'query_answer' in v || 'uuid' in v);
    return isStepList(v.trajectory ?? v.steps);
  },
  read(value, ctx) {
    const row: Json = Array.isArray(value) ? { trajectory: value } : (value as Json);
    // Optional fields through one typed reader: a wrong type is a warning naming the field.
    const top = fieldsOf(ctx, row);
    const steps = stepsOf(row);
    if (typeof steps === 'string') {
      let detail = 'not a JSON list';
      try {
        JSON.parse(steps);
      } catch (err) {
        detail = (err as Error).message;
      }
      ctx.findings.push(trajFinding('traj-malformed-json', at(ctx, 'trajectory'), { detail: `the trajectory string is not a JSON list of steps: ${detail}` }));
      return undefined;
    }
    if (!Array.isArray(steps)) {
      ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, 'trajectory'), { expected: 'a list of steps or a JSON string of one', actual: typeName(steps) }));
      return undefined;
    }
    if (!steps.length) {
      ctx.findings.push(trajFinding('traj-empty', at(ctx, 'trajectory'), {}));
      return undefined;
    }
    // APTBench plan rows hold a trajectory prefix plus the gold next step: the prefix and that
    // step together are the trajectory as far as it is known.
    let nextStep: unknown = row.next_step;
    if (typeof nextStep === 'string') {
      try {
        nextStep = JSON.parse(nextStep) as unknown;
      } catch {
        nextStep = undefined;
      }
    }
    const all = isRecord(nextStep) && isRecord(nextStep.execution) ? [...steps, nextStep] : steps;
    const drafts = convertSteps(all, ctx, 'trajectory');
    if (!drafts) return undefined;
    const query = top.str('query') ?? top.str('question') ?? '';
    const instanceId = row.uuid != null ? String(row.uuid) : row.id != null ? String(row.id) : row.traj_id != null ? String(row.traj_id) : ctx.fileStem;
    // APTBench's `source` is `ids_<model>_<engine>` (InfoDeepSeek agent, model, search engine).
    const source = top.str('source');
    const sourceMatch = source ? /^ids_(.+?)_(google|ddg|lang_ddg|bing|serper)$/.exec(source) : null;
    const model = sourceMatch ? sourceMatch[1]!.replace(/_lang$/, '') : null;
    const engine = sourceMatch ? sourceMatch[2]! : null;
    const fromAptbench = 'query_answer' in row && ('question_instruct' in row || 'traj_len' in row);
    const goldAnswer = top.str('query_answer') ?? top.str('gold_answer') ?? top.str('true_answer');
    const last = drafts[drafts.length - 1]!;
    return buildTrajectory(
      {
        framework: sourceMatch || fromAptbench ? 'infodeepseek' : 'deep-research',
        format: 'deep-research-steps',
        domain: 'deep_research',
        instanceId,
        runId: row.traj_id != null && row.uuid != null ? `${source ?? 'run'}-${String(row.traj_id)}` : null,
        goal: query,
        steps: drafts,
        tools: toolSet(row.tool_set),
        task: { gold_answer: goldAnswer },
        agent: { model, agent_class: sourceMatch ? 'InfoSeekAgent' : null },
        outcome: {
          exit_status: last.kind === 'finish' ? last.tool : null,
          // In MCQ rows `answer` is the letter of the gold choice, not the agent's answer.
          submission: 'choices' in row ? null : (top.str('answer') ?? top.str('prediction')),
          ...(fromAptbench ? { success: true, success_source: 'benchmark_construction' as const, success_evidence: 'APTBench builds its deep-research rows from successful trajectories' } : {}),
        },
        extra: {
          ...(engine ? { search_engine: engine } : {}),
          ...(source ? { agent_source: source } : {}),
          ...(row.traj_id != null ? { source_traj_id: row.traj_id } : {}),
          ...(all !== steps ? { gold_next_step: steps.length, question_id: top.str('qid') } : {}),
        },
      },
      ctx,
    );
  },
};
