/**
 * OpenHands event streams: a list of `{id, source, action | observation, args, cause}`
 * events. Each agent action becomes a step; the observation whose `cause` is the action's id
 * is its observation. `finish.args.task_completed` is the agent's self-report, not success.
 */
import { trajFinding } from '../findings.js';
import { isRecord, str, typeName } from '../text.js';
import { fieldsOf, type Fields } from './fields.js';
import type { ToolSpec, Trajectory } from '../types.js';
import { at, buildTrajectory, parseToolArguments, type FormatReader, type RecordContext, type StepDraft } from './reader.js';

type Json = Record<string, unknown>;

/** Bookkeeping actions that are not decisions of the agent. */
const SKIPPED_ACTIONS = new Set(['system', 'recall', 'change_agent_state', 'null', 'condensation', 'agent_state_changed']);
/** Argument keys that are OpenHands plumbing rather than what the agent chose. */
const PLUMBING = new Set(['thought', 'is_input', 'blocking', 'is_static', 'cwd', 'hidden', 'confirmation_state', 'security_risk', 'impl_source', 'wait_for_response', 'image_urls', 'keep_prompt', 'include_extra']);

export function isEventList(v: unknown): v is Json[] {
  return Array.isArray(v) && v.length > 0 && v.every((e) => isRecord(e) && ('action' in e || 'observation' in e)) && v.some((e) => isRecord(e) && 'id' in e);
}

function modelResponseContent(event: Json): string | null {
  const meta = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
  const response = meta && isRecord(meta.model_response) ? meta.model_response : undefined;
  const choice = response && Array.isArray(response.choices) && isRecord(response.choices[0]) ? response.choices[0] : undefined;
  const message = choice && isRecord(choice.message) ? choice.message : undefined;
  return message ? str(message.content) : null;
}

/** The function call the model actually emitted for this action (exact arguments), if recorded. */
function emittedCall(event: Json): { name: string; arguments: unknown } | null {
  const meta = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
  const response = meta && isRecord(meta.model_response) ? meta.model_response : undefined;
  const choice = response && Array.isArray(response.choices) && isRecord(response.choices[0]) ? response.choices[0] : undefined;
  const message = choice && isRecord(choice.message) ? choice.message : undefined;
  const calls = message && Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const call = calls.find((c) => c.id === meta?.tool_call_id) ?? (calls.length === 1 ? calls[0] : undefined);
  const fn = call && isRecord(call.function) ? call.function : undefined;
  return fn && typeof fn.name === 'string' ? { name: fn.name, arguments: fn.arguments } : null;
}

function modelOf(events: Json[]): string | null {
  for (const e of events) {
    const meta = isRecord(e.tool_call_metadata) ? e.tool_call_metadata : undefined;
    const response = meta && isRecord(meta.model_response) ? meta.model_response : undefined;
    if (response && typeof response.model === 'string') return response.model;
  }
  return null;
}

export interface ConvertedEvents {
  steps: StepDraft[];
  goal: string | null;
  systemPrompt: string | null;
  tools: ToolSpec[];
  selfReport: string | null;
  finalAnswer: string | null;
  model: string | null;
  metrics: Trajectory['metrics'];
  finished: boolean;
}

/** Converts events to step drafts; `field` prefixes finding paths (e.g. `history`). */
export function convertEvents(events: unknown[], ctx: RecordContext, field: string): ConvertedEvents | undefined {
  const out: ConvertedEvents = { steps: [], goal: null, systemPrompt: null, tools: [], selfReport: null, finalAnswer: null, model: null, metrics: {}, finished: false };
  const byId = new Map<number, number>(); // action id → step index
  let lastMetrics: Fields | undefined;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (!isRecord(e)) {
      ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `${field}[${i}]`), { expected: 'an event object', actual: typeName(e) }));
      return undefined;
    }
    // Every field read through one typed accessor: a present field of the wrong type is a
    // traj-field-ignored warning naming file, line and field, never a silent drop.
    const ev = fieldsOf(ctx, e, `${field}[${i}]`);
    const llmMetrics = ev.obj('llm_metrics');
    if (isRecord(e.llm_metrics)) lastMetrics = llmMetrics;
    const args = ev.obj('args');
    const action = ev.str('action');
    const message = () => ev.str('message');
    if (action !== null) {
      if (action === 'system') {
        out.systemPrompt = args.str('content') ?? message();
        if (Array.isArray(args.raw.tools)) {
          for (const t of args.raw.tools) {
            const fn = isRecord(t) && isRecord(t.function) ? t.function : undefined;
            if (fn && typeof fn.name === 'string') out.tools.push({ name: fn.name, description: str(fn.description), parameters: isRecord(fn.parameters) ? fn.parameters : null });
          }
        }
        continue;
      }
      if (SKIPPED_ACTIONS.has(action)) continue;
      const source = ev.str('source');
      if (source === 'user' || source === 'environment') {
        const content = args.str('content') ?? message() ?? '';
        if (out.goal === null && !out.steps.length) out.goal = content;
        else if (out.steps.length) {
          // Later user turns are part of what the agent observed after its last step.
          const last = out.steps[out.steps.length - 1]!;
          last.observation = `${last.observation ? `${last.observation}\n` : ''}[user] ${content}`;
        }
        continue;
      }
      const meta = ev.obj('tool_call_metadata');
      const hasMeta = isRecord(e.tool_call_metadata);
      const tool = meta.str('function_name') ?? action;
      const thought = args.str('thought') || modelResponseContent(e) || null;
      const chosen: Json = {};
      for (const [k, v] of Object.entries(args.raw)) if (!PLUMBING.has(k) && v !== null && v !== '') chosen[k] = v;
      let draft: StepDraft;
      const call = action === 'message' ? null : emittedCall(e);
      const callArgs = call ? parseToolArguments(call.arguments, call.name, ctx, `${field}[${i}].tool_call_metadata`) : null;
      if (call && callArgs && !('raw' in callArgs)) {
        const kind = action === 'finish' ? 'finish' : action === 'run' ? 'shell' : action === 'run_ipython' ? 'code' : 'tool_call';
        const { thought: _ignored, ...chosenArgs } = callArgs;
        const raw = typeof chosenArgs.command === 'string' && kind === 'shell' ? chosenArgs.command : typeof chosenArgs.code === 'string' ? chosenArgs.code : null;
        draft = { thought: str(callArgs.thought) || thought, kind, tool: call.name, args: chosenArgs, raw, observation: null };
        if (action === 'finish') {
          out.finished = true;
          out.selfReport = args.str('task_completed') ?? str(chosenArgs.task_completed);
          out.finalAnswer = args.str('final_thought') ?? str(chosenArgs.message) ?? message();
          draft.text = 'finish';
        }
        if (action === 'think') draft.text = 'think';
      } else if (action === 'run' || action === 'run_ipython') {
        const command = args.str('command') ?? args.str('code') ?? '';
        draft = { thought, kind: action === 'run' ? 'shell' : 'code', tool, args: action === 'run' ? { command } : { code: command }, raw: command, observation: null };
      } else if (action === 'read') {
        const ed: Json = { command: 'view', path: args.str('path') ?? '' };
        if (Array.isArray(args.raw.view_range)) ed.view_range = args.raw.view_range;
        draft = { thought, kind: 'tool_call', tool: hasMeta ? tool : 'str_replace_editor', args: ed, observation: null };
      } else if (action === 'edit') {
        draft = { thought, kind: 'tool_call', tool: hasMeta ? tool : 'str_replace_editor', args: chosen, observation: null };
      } else if (action === 'finish') {
        out.finished = true;
        out.selfReport = args.str('task_completed');
        out.finalAnswer = args.str('final_thought') ?? message();
        draft = { thought, kind: 'finish', tool: 'finish', args: chosen, raw: out.finalAnswer, text: 'finish', observation: null };
      } else if (action === 'message') {
        const content = args.str('content') ?? message() ?? '';
        draft = { thought: null, kind: 'message', tool: null, args: { content }, raw: content, observation: null };
      } else if (action === 'think') {
        draft = { thought: args.str('thought'), kind: 'tool_call', tool: 'think', args: {}, text: 'think', observation: null };
      } else {
        draft = { thought, kind: 'tool_call', tool, args: chosen, observation: null };
      }
      const timestamp = ev.str('timestamp');
      if (timestamp !== null) draft.timestamp = timestamp;
      const id = ev.num('id');
      if (id !== null) byId.set(id, out.steps.length);
      out.steps.push(draft);
      continue;
    }
    const observation = ev.str('observation');
    if (observation !== null) {
      if (['recall', 'agent_state_changed', 'null', 'user_rejected', 'condensation'].includes(observation)) continue;
      const content = ev.str('content') ?? message() ?? '';
      let target: number | undefined;
      const cause = ev.num('cause');
      if (cause !== null) {
        target = byId.get(cause);
        if (target === undefined) {
          ctx.findings.push(trajFinding('traj-unpaired-observation', at(ctx, `${field}[${i}].cause`), { id: e.id, cause }));
          continue;
        }
      } else if (out.steps.length) {
        // An error observation without a cause answers the latest action.
        target = out.steps.length - 1;
      }
      if (target === undefined) continue;
      const step = out.steps[target]!;
      step.observation = step.observation ? `${step.observation}\n${content}` : content;
      const extras = ev.obj('extras');
      const exitCode = extras.obj('metadata').num('exit_code') ?? extras.num('exit_code');
      if (exitCode !== null && Number.isInteger(exitCode)) step.exitCode = exitCode;
      const success = ev.bool('success');
      if (success !== null) step.ok = success;
      else if (observation === 'error') step.ok = false;
    }
  }
  out.model = modelOf(events.filter(isRecord));
  if (lastMetrics) {
    const usage = lastMetrics.obj('accumulated_token_usage');
    out.metrics = { cost_usd: lastMetrics.num('accumulated_cost'), tokens_in: usage.num('prompt_tokens'), tokens_out: usage.num('completion_tokens') };
  }
  return out;
}

export const openhandsEventsReader: FormatReader = {
  title: 'OpenHands event stream',
  framework: 'openhands',
  containers: ['document'],
  detect: isEventList,
  read(value, ctx) {
    const converted = convertEvents(value as unknown[], ctx, '');
    if (!converted) return undefined;
    if (!converted.steps.length) {
      ctx.findings.push(trajFinding('traj-empty', at(ctx), { detail: 'no agent actions among the events' }));
      return undefined;
    }
    return buildTrajectory(
      {
        framework: 'openhands',
        format: 'openhands-events',
        domain: 'other',
        instanceId: ctx.fileStem,
        goal: converted.goal ?? '',
        steps: converted.steps,
        tools: converted.tools,
        agent: { model: converted.model, system_prompt: converted.systemPrompt },
        outcome: { exit_status: converted.finished ? 'finish' : null, submission: converted.finalAnswer, self_report: converted.selfReport },
        metrics: converted.metrics,
      },
      ctx,
    );
  },
};
