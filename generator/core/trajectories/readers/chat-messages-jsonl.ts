/**
 * Generic chat transcripts: `{messages: [...]}` with OpenAI-style `tool_calls` and `tool`
 * replies (SWE-Gym / nebius / ADP-style dumps), or XML `<function=name><parameter=k>v</parameter>`
 * calls in the assistant text (SWE-smith style). A boolean `resolved` / `target` / `success`
 * / `label` in the row is a dataset label; `is_correct` is an answer match.
 */
import { trajFinding } from '../findings.js';
import { extractGoal, isRecord, repoFromInstanceId, str, typeName } from '../text.js';
import { DOMAINS, type Domain, type SuccessSource, type ToolSpec, type Trajectory } from '../types.js';
import { fieldsOf } from './fields.js';
import { at, buildTrajectory, FINISH_TOOLS, kindForTool, parseToolArguments, type FormatReader, type StepDraft } from './reader.js';

type Json = Record<string, unknown>;
const XML_CALL = /<function=([\w.-]+)>([\s\S]*?)<\/function>/;
const XML_PARAM = /<parameter=([\w.-]+)>\n?([\s\S]*?)\n?<\/parameter>/g;

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

function labelOf(row: Json, where: string): Pick<Trajectory['outcome'], 'success' | 'success_source' | 'success_evidence'> | null {
  const sources: Array<[string, SuccessSource]> = [['resolved', 'dataset_label'], ['target', 'dataset_label'], ['success', 'dataset_label'], ['label', 'dataset_label'], ['is_correct', 'answer_match']];
  for (const [key, source] of sources) if (typeof row[key] === 'boolean') return { success: row[key] as boolean, success_source: source, success_evidence: `${where}: ${key}` };
  return null;
}

const isDomain = (v: unknown): v is Domain => typeof v === 'string' && (DOMAINS as readonly string[]).includes(v);

function toolsOf(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  const out: ToolSpec[] = [];
  for (const t of value) {
    const fn = isRecord(t) && isRecord(t.function) ? t.function : isRecord(t) ? t : undefined;
    if (fn && typeof fn.name === 'string') out.push({ name: fn.name, description: str(fn.description), parameters: isRecord(fn.parameters) ? fn.parameters : null });
  }
  return out;
}

export const chatMessagesReader: FormatReader = {
  title: 'chat messages (OpenAI-style, tool_calls)',
  framework: 'chat',
  containers: ['record', 'document'],
  detect(v) {
    return isRecord(v) && Array.isArray(v.messages) && v.messages.length > 0 && v.messages.every((m) => isRecord(m) && typeof m.role === 'string');
  },
  read(value, ctx) {
    const row = value as Json;
    // Optional fields through one typed reader: a wrong type is a warning naming the field.
    const top = fieldsOf(ctx, row);
    const messages = row.messages as Json[];
    const system = messages.find((m) => m.role === 'system');
    const firstUser = messages.findIndex((m) => m.role === 'user');
    const drafts: StepDraft[] = [];
    // tool_call_id → step index, so `tool` replies land on the call that asked for them.
    const byCallId = new Map<string, number>();
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role === 'assistant') {
        if (m.content != null && typeof m.content !== 'string' && !Array.isArray(m.content)) {
          ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `messages[${i}].content`), { expected: 'a string or a list of parts', actual: typeName(m.content) }));
          return undefined;
        }
        if (m.tool_calls !== undefined && m.tool_calls !== null && !Array.isArray(m.tool_calls)) {
          ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `messages[${i}].tool_calls`), { expected: 'a list of tool calls', actual: typeName(m.tool_calls) }));
          return undefined;
        }
        const content = text(m.content);
        const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
        if (calls.length) {
          calls.forEach((c, k) => {
            const fn = isRecord(c) && isRecord(c.function) ? c.function : undefined;
            const name = fn && typeof fn.name === 'string' ? fn.name : 'unknown_tool';
            const args = parseToolArguments(fn?.arguments, name, ctx, `messages[${i}].tool_calls[${k}].function.arguments`);
            const kind = kindForTool(name);
            if (isRecord(c) && typeof c.id === 'string') byCallId.set(c.id, drafts.length);
            drafts.push({ thought: k === 0 ? content || str(m.reasoning_content) : null, kind, tool: name, args, raw: kind === 'shell' ? str(args.command) ?? str(args.raw) : null, observation: null });
          });
          continue;
        }
        const xml = XML_CALL.exec(content);
        if (xml) {
          const args: Json = {};
          for (const p of xml[2]!.matchAll(XML_PARAM)) args[p[1]!] = p[2]!;
          const name = xml[1]!;
          const kind = kindForTool(name);
          drafts.push({ thought: content.slice(0, xml.index).trim() || null, kind, tool: name, args, raw: kind === 'shell' ? str(args.command) : xml[0], observation: null });
          continue;
        }
        drafts.push({ thought: null, kind: 'message', tool: null, args: { content }, raw: content, observation: null });
        continue;
      }
      if ((m.role === 'tool' || m.role === 'user' || m.role === 'function') && i > firstUser && drafts.length) {
        const id = str(m.tool_call_id);
        const target = id !== null && byCallId.has(id) ? byCallId.get(id)! : drafts.length - 1;
        const step = drafts[target]!;
        const content = text(m.content);
        step.observation = step.observation ? `${step.observation}\n${content}` : content;
      }
    }
    if (!drafts.length) {
      ctx.findings.push(trajFinding('traj-empty', at(ctx, 'messages'), { detail: 'no assistant messages' }));
      return undefined;
    }
    const idOf = (v: unknown) => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);
    const instanceId = idOf(row.instance_id) ?? idOf(row.id) ?? idOf(row.task_id) ?? ctx.fileStem;
    const goal = top.str('problem_statement') ?? top.str('question') ?? (firstUser >= 0 ? extractGoal(text(messages[firstUser]!.content)) : '');
    const last = drafts[drafts.length - 1]!;
    const label = labelOf(row, ctx.line !== undefined ? `${ctx.file}:${ctx.line}` : ctx.file);
    const swe = /__/.test(instanceId) || typeof row.patch === 'string' || typeof row.generated_patch === 'string' || drafts.some((d) => d.tool === 'str_replace_editor');
    return buildTrajectory(
      {
        framework: top.str('framework') ?? 'chat',
        format: 'chat-messages-jsonl',
        domain: isDomain(row.domain) ? row.domain : swe ? 'swe' : 'other',
        instanceId,
        runId: top.str('run_id'),
        goal,
        steps: drafts,
        tools: toolsOf(row.tools),
        task: { gold_answer: top.str('true_answer') ?? top.str('gold_answer'), gold_patch: top.str('gold_patch') },
        environment: { repo: top.str('repo') ?? repoFromInstanceId(instanceId) },
        agent: { model: top.str('model') ?? top.str('model_name'), system_prompt: system ? text(system.content) : null },
        outcome: {
          exit_status: top.str('exit_status') ?? (last.tool && FINISH_TOOLS.has(last.tool) ? last.tool : null),
          submission: top.str('generated_patch') ?? top.str('model_patch') ?? top.str('patch') ?? top.str('prediction') ?? (last.kind === 'message' ? str(last.args.content) : null),
          ...(label ?? {}),
        },
      },
      ctx,
    );
  },
};
