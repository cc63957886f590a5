/**
 * mini-swe-agent: the 1.x `{info, messages, trajectory_format}` document and the older bare
 * list of `{role, content}` messages. Actions are the fenced bash block of an assistant turn
 * (or its `tool_calls`); the observation is the next user/tool message with `<returncode>`.
 */
import { trajFinding } from '../findings.js';
import { extractGoal, isRecord, repoFromInstanceId, typeName } from '../text.js';
import { fieldsOf } from './fields.js';
import { at, buildTrajectory, parseToolArguments, type FormatReader, type StepDraft } from './reader.js';

type Json = Record<string, unknown>;
const FENCE = /```([\w-]*)[ \t]*\r?\n([\s\S]*?)\r?\n?```/;
const SUBMIT = /COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT/;

function isMessageList(v: unknown): v is Json[] {
  return Array.isArray(v) && v.length > 0 && v.every((m) => isRecord(m) && typeof m.role === 'string');
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

function looksMini(messages: Json[]): boolean {
  return messages.some((m) => (m.role === 'user' || m.role === 'tool') && /<returncode>/.test(text(m.content)))
    || messages.some((m) => m.role === 'assistant' && /```mswea_bash_command/.test(text(m.content)));
}

export const miniSweAgentReader: FormatReader = {
  title: 'mini-swe-agent trajectory',
  framework: 'mini-swe-agent',
  containers: ['document', 'record'],
  detect(v) {
    if (isMessageList(v)) return looksMini(v);
    if (!isRecord(v) || !isMessageList(v.messages)) return false;
    const info = isRecord(v.info) ? v.info : {};
    return String(v.trajectory_format ?? '').startsWith('mini-swe-agent') || 'mini_version' in info || looksMini(v.messages);
  },
  read(value, ctx) {
    const doc: Json = Array.isArray(value) ? { messages: value } : (value as Json);
    const messages = (doc.messages as unknown[]).filter(isRecord);
    // Optional fields through one typed reader: a wrong type is a warning naming the field.
    const top = fieldsOf(ctx, doc);
    const info = top.obj('info');
    const config = info.obj('config');
    const modelCfg = config.obj('model');
    const system = messages.find((m) => m.role === 'system');
    const task = messages.find((m) => m.role === 'user');
    const drafts: StepDraft[] = [];
    let submission = info.str('submission');

    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role !== 'assistant') continue;
      if (typeof m.content !== 'string' && !Array.isArray(m.content) && !Array.isArray(m.tool_calls)) {
        ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `messages[${i}].content`), { expected: 'a string', actual: typeName(m.content) }));
        return undefined;
      }
      const content = text(m.content);
      // The observation is every user/tool message up to the next assistant turn.
      const replies: string[] = [];
      let j = i + 1;
      for (; j < messages.length && messages[j]!.role !== 'assistant'; j++) replies.push(text(messages[j]!.content));
      const reply = replies.length ? replies.join('\n') : null;
      const returncode = reply ? /<returncode>\s*(-?\d+)\s*<\/returncode>/.exec(reply) : null;
      const output = reply ? /<output>\n?([\s\S]*?)\n?<\/output>/.exec(reply) : null;
      const exitCode = returncode ? Number(returncode[1]) : undefined;
      const observation = output ? output[1]! : reply;

      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isRecord) : [];
      const fn = calls[0] && isRecord(calls[0].function) ? calls[0].function : undefined;
      let command: string | null = null;
      let draft: Omit<StepDraft, 'observation'>;
      if (fn && typeof fn.name === 'string') {
        const args = parseToolArguments(fn.arguments, fn.name, ctx, `messages[${i}].tool_calls[0].function.arguments`);
        command = typeof args.command === 'string' ? args.command : null;
        draft = { thought: content || null, kind: command !== null ? 'shell' : 'tool_call', tool: fn.name, args, raw: command };
      } else {
        const fence = FENCE.exec(content);
        if (!fence) {
          // A turn without a command (format error the agent was told about) is kept as a message.
          draft = { thought: null, kind: 'message', tool: null, args: { content }, raw: content };
        } else {
          command = fence[2]!.trim();
          const thought = content.slice(0, fence.index).replace(/^\s*THOUGHT:\s*/, '').trim();
          draft = { thought: thought || null, kind: 'shell', tool: 'bash', args: { command }, raw: command };
        }
      }
      if (command !== null && SUBMIT.test(command)) {
        draft = { ...draft, kind: 'finish', text: command };
        // The bare-list format stores the submitted diff as the reply to the submit command.
        if (!submission && reply && /^diff --git/m.test(reply)) submission = reply;
      }
      drafts.push({ ...draft, observation, exitCode: exitCode ?? undefined });
      i = j - 1;
    }
    if (!drafts.length) {
      ctx.findings.push(trajFinding('traj-empty', at(ctx, 'messages'), { detail: 'no assistant messages' }));
      return undefined;
    }
    const instanceId = top.str('instance_id') ?? info.str('instance_id') ?? ctx.fileStem.replace(/\.traj$/, '');
    const stats = info.obj('model_stats');
    return buildTrajectory(
      {
        framework: 'mini-swe-agent',
        format: 'mini-swe-agent',
        domain: 'swe',
        instanceId,
        goal: task ? extractGoal(text(task.content)) : '',
        steps: drafts,
        environment: { repo: repoFromInstanceId(instanceId) },
        agent: { model: modelCfg.str('model_name') ?? config.str('model_name') ?? null, agent_class: 'mini-swe-agent', system_prompt: system ? text(system.content) : null },
        outcome: { exit_status: info.str('exit_status'), submission, self_report: info.str('exit_status') },
        metrics: { cost_usd: stats.num('instance_cost'), api_calls: stats.num('api_calls') },
        extra: typeof doc.trajectory_format === 'string' ? { trajectory_format: doc.trajectory_format } : undefined,
      },
      ctx,
    );
  },
};
