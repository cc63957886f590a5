/**
 * SWE-agent `.traj`: classic `trajectory[] {thought, action, observation, state}`, the
 * function-calling variant whose `history[]` assistant messages carry `tool_calls`, and
 * demonstration files that hold `history[]` alone (classic or function calling).
 * `info.exit_status: submitted` is recorded, never taken as success.
 */
import { trajFinding } from '../findings.js';
import { extractGoal, isRecord, repoFromInstanceId, str, typeName } from '../text.js';
import type { ToolSpec } from '../types.js';
import { fieldsOf } from './fields.js';
import { at, buildTrajectory, parseToolArguments, type FormatReader, type RecordContext, type StepDraft } from './reader.js';

type Json = Record<string, unknown>;

function parseMaybeJson(value: unknown): Json | null {
  if (isRecord(value)) return value;
  if (typeof value === 'string' && value.trim().startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as unknown;
      return isRecord(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return null;
}

/** Parses the `COMMANDS:` block of SWE-agent's system prompt into tool specs with JSON Schemas. */
export function parseSweAgentCommands(systemPrompt: string): ToolSpec[] {
  const start = systemPrompt.indexOf('COMMANDS:\n');
  if (start < 0) return [];
  const rest = systemPrompt.slice(start + 'COMMANDS:\n'.length);
  // The block ends at the first unindented line that does not start a command entry.
  const entries = rest.split(/^(?=[A-Za-z_][\w-]*:\n[ \t]+docstring:)/m);
  const tools: ToolSpec[] = [];
  for (const entry of entries) {
    const head = /^([A-Za-z_][\w-]*):\n[ \t]+docstring:/.exec(entry);
    if (!head) continue;
    const body = entry.split(/\n\n(?=[A-Z][A-Z ]+:|[A-Z])/)[0]!;
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    const order: string[] = [];
    for (const arg of body.matchAll(/^[ \t]+-\s*([\w-]+)\s*\(([^)]*)\)\s*\[(required|optional)\]\s*:?\s*(.*)$/gm)) {
      properties[arg[1]!] = { type: arg[2]!.trim() || 'string', description: arg[4]!.trim() };
      order.push(arg[1]!);
      if (arg[3] === 'required') required.push(arg[1]!);
    }
    const docstring = /docstring:\s*(.*)/.exec(body)?.[1]?.trim() ?? null;
    const signature = /signature:\s*([\s\S]*?)\n[ \t]+(arguments:|$)/.exec(`${body}\n `)?.[1]?.trim() ?? null;
    tools.push({
      name: head[1]!,
      description: docstring,
      parameters: { type: 'object', properties, required, 'x-order': order, ...(signature ? { 'x-signature': signature } : {}) },
    });
  }
  return tools;
}

/** Maps the words after a command onto the names in its signature (`edit <start_line>:<end_line>`). */
function bindSignature(signature: string | undefined, words: string[]): Record<string, string> | null {
  if (!signature) return null;
  const tokens = splitCommandLine(signature.split('\n')[0]!).slice(1).map((t) => t.replace(/^\[|\]$/g, ''));
  const bound: Record<string, string> = {};
  for (let i = 0; i < words.length; i++) {
    const token = tokens[i];
    if (!token || !/<[\w-]+>/.test(token)) return null;
    const names: string[] = [];
    const pattern = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<([\w-]+)>/g, (_m, n: string) => {
      names.push(n);
      return '(.+?)';
    });
    const m = new RegExp(`^${pattern}$`).exec(words[i]!);
    if (!m) return null;
    names.forEach((n, k) => (bound[n] = m[k + 1]!));
  }
  return bound;
}

/** Splits a command line like a shell would for quoting, without expanding anything. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

const DEFAULT_COMMANDS = new Set([
  'open', 'goto', 'scroll_up', 'scroll_down', 'create', 'edit', 'insert', 'append', 'search_dir', 'search_file',
  'find_file', 'submit', 'str_replace_editor', 'filemap', 'exit_forfeit', 'exit_cost', 'exit_context', 'exit_error',
]);

/** A classic text action: a special command with positional arguments, or a bash command. */
export function parseClassicAction(raw: string, tools: ToolSpec[]): Omit<StepDraft, 'thought' | 'observation'> {
  const trimmed = raw.replace(/\r/g, '').trim();
  const [head = '', ...bodyLines] = trimmed.split('\n');
  const words = splitCommandLine(head);
  const name = words[0] ?? '';
  const spec = tools.find((t) => t.name === name);
  if (!spec && !DEFAULT_COMMANDS.has(name)) return { kind: 'shell', tool: 'bash', args: { command: trimmed }, raw: trimmed };
  const params = spec?.parameters as Json | undefined;
  const order = (params?.['x-order'] as string[] | undefined) ?? [];
  const positional = words.slice(1);
  const args: Json = bindSignature(params?.['x-signature'] as string | undefined, positional) ?? {};
  if (!Object.keys(args).length) {
    positional.forEach((value, i) => {
      args[order[i] ?? `arg${i}`] = value;
    });
  }
  if (bodyLines.length) {
    const body = bodyLines.join('\n').replace(/\n?end_of_edit\s*$/, '');
    const free = order.find((k) => !(k in args));
    args[free ?? 'body'] = body;
  }
  if (name.startsWith('exit_') || name === 'submit') return { kind: 'finish', tool: name, args, raw: trimmed, text: head };
  return { kind: 'tool_call', tool: name, args, raw: trimmed, text: head };
}

function observationOf(messages: Json[], from: number): string | null {
  const parts: string[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') break;
    const content = contentText(m.content);
    if (content !== null) parts.push(content);
  }
  return parts.length ? parts.join('\n') : null;
}

function contentText(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const texts = content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).filter(Boolean);
    return texts.length ? texts.join('\n') : null;
  }
  return null;
}

/**
 * A demonstration file (`trajectories/demonstrations/*.traj`): only `history`, whose messages
 * carry SWE-agent's own `agent` / `message_type` fields (a plain chat log has neither), and at
 * least one assistant turn.
 */
function isHistoryOnly(v: Json): boolean {
  if ('trajectory' in v || 'info' in v || 'replay_config' in v || !Array.isArray(v.history) || v.history.length === 0) return false;
  let assistant = false;
  let sweFields = false;
  for (const m of v.history) {
    if (!isRecord(m) || typeof m.role !== 'string') return false;
    if (m.role === 'assistant') assistant = true;
    if (typeof m.message_type === 'string' || typeof m.agent === 'string') sweFields = true;
  }
  return assistant && sweFields;
}

/**
 * SWE-agent's thought-action format: the action is the last fenced block of the reply, the
 * thought everything before it. Used when a history turn has no `action` field of its own.
 */
export function splitThoughtAction(content: string): { thought: string; action: string } | null {
  const blocks = [...content.matchAll(/```[^\n`]*\n([\s\S]*?)\n?```/g)];
  const last = blocks[blocks.length - 1];
  if (!last) return null;
  return { thought: content.slice(0, last.index).trim(), action: last[1]!.trim() };
}

export const sweAgentTrajReader: FormatReader = {
  title: 'SWE-agent .traj',
  framework: 'swe-agent',
  containers: ['document', 'record'],
  detect(v) {
    if (!isRecord(v) || 'messages' in v || 'schema_version' in v) return false;
    const hasTrajectory = Array.isArray(v.trajectory) && (v.trajectory.length === 0 || (isRecord(v.trajectory[0]) && ('action' in v.trajectory[0] || 'response' in v.trajectory[0])));
    const hasHistory = Array.isArray(v.history) && v.history.some((m) => isRecord(m) && typeof m.role === 'string');
    return ((hasTrajectory || hasHistory) && (isRecord(v.info) || typeof v.environment === 'string' || 'replay_config' in v)) || isHistoryOnly(v);
  },
  read(value, ctx) {
    const doc = value as Json;
    const history = Array.isArray(doc.history) ? doc.history.filter(isRecord) : [];
    const trajectory = Array.isArray(doc.trajectory) ? doc.trajectory : [];
    // Optional fields through one typed reader: a wrong type is a warning naming the field.
    const info = fieldsOf(ctx, doc).obj('info');
    const replay = fieldsOf(ctx, parseMaybeJson(doc.replay_config), 'replay_config');
    const replayAgent = replay.obj('agent');
    const replayEnv = replay.obj('env');
    const problem = replay.obj('problem_statement');

    const system = history.find((m) => m.role === 'system');
    const systemPrompt = system ? contentText(system.content) : null;
    const tools = systemPrompt ? parseSweAgentCommands(systemPrompt) : [];

    const firstTask = history.find((m) => m.role === 'user' && !m.is_demo && !String(m.content ?? '').includes('--- DEMONSTRATION ---'));
    const goal = problem.str('text') ?? (firstTask ? extractGoal(contentText(firstTask.content) ?? '') : '');
    const instanceId = problem.str('id') ?? /[A-Za-z0-9_.-]+?__[A-Za-z0-9_.-]+?-\d+/.exec(ctx.fileStem)?.[0] ?? ctx.fileStem;

    // Assistant turns of the real run (demonstrations excluded), with their message index.
    const assistantTurns: Array<{ msg: Json; index: number }> = [];
    history.forEach((m, index) => {
      if (m.role === 'assistant' && !m.is_demo) assistantTurns.push({ msg: m, index });
    });

    const drafts: StepDraft[] = [];
    let workdir: string | null = null;
    const useTrajectory = trajectory.length > 0;
    const count = useTrajectory ? trajectory.length : assistantTurns.length;
    for (let i = 0; i < count; i++) {
      const entry = useTrajectory ? trajectory[i] : undefined;
      if (useTrajectory && !isRecord(entry)) {
        ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `trajectory[${i}]`), { expected: 'an object {thought, action, observation}', actual: typeName(entry) }));
        return undefined;
      }
      // History turns add tool_calls only when they line up one-to-one with trajectory[].
      const turn = !useTrajectory || assistantTurns.length === trajectory.length ? assistantTurns[i] : undefined;
      // History-only classic files may keep the action only inside the reply's fenced block.
      const split = !entry && turn && typeof turn.msg.action !== 'string' && !Array.isArray(turn.msg.tool_calls) ? splitThoughtAction(contentText(turn.msg.content) ?? '') : null;
      const actionText = entry ? entry.action : (split?.action ?? turn?.msg.action);
      if (entry && typeof actionText !== 'string') {
        ctx.findings.push(trajFinding('traj-wrong-type', at(ctx, `trajectory[${i}].action`), { expected: 'a string (the command the agent ran)', actual: typeName(actionText) }));
        return undefined;
      }
      const thought = str(entry?.thought) ?? str(turn?.msg.thought) ?? split?.thought ?? contentText(turn?.msg.content) ?? null;
      const state = parseMaybeJson(entry?.state);
      if (state && typeof state.working_dir === 'string') workdir ??= state.working_dir;
      const observation = entry ? (typeof entry.observation === 'string' ? entry.observation : null) : turn ? observationOf(history, turn.index + 1) : null;

      const calls = Array.isArray(turn?.msg.tool_calls) ? turn.msg.tool_calls.filter(isRecord) : [];
      const call = calls[0];
      const fn = call && isRecord(call.function) ? call.function : undefined;
      let draft: Omit<StepDraft, 'thought' | 'observation'>;
      if (fn && typeof fn.name === 'string') {
        const field = `history[${turn!.index}].tool_calls[0].function.arguments`;
        const args = parseToolArguments(fn.arguments, fn.name, ctx, field);
        const raw = typeof actionText === 'string' ? actionText.replace(/\r/g, '').trim() : null;
        if (fn.name === 'bash') draft = { kind: 'shell', tool: 'bash', args, raw };
        else draft = { kind: fn.name === 'submit' || fn.name.startsWith('exit_') ? 'finish' : 'tool_call', tool: fn.name, args, raw, text: raw };
      } else {
        draft = parseClassicAction(typeof actionText === 'string' ? actionText : '', tools);
      }
      drafts.push({ ...draft, thought, observation });
    }
    if (!drafts.length) {
      ctx.findings.push(trajFinding('traj-empty', at(ctx, useTrajectory ? 'trajectory' : 'history'), { detail: 'no trajectory[] entries and no assistant turns in history[]' }));
      return undefined;
    }
    const stats = info.obj('model_stats');
    const deployment = replayEnv.obj('deployment');
    const repoCfg = replayEnv.obj('repo');
    const model = replayAgent.obj('model').str('name');
    // CTF wording in the goal is caught for every reader (buildTrajectory); the environment name catches the rest.
    const ctf = typeof doc.environment === 'string' && /ctf/i.test(doc.environment);
    return buildTrajectory(
      {
        framework: 'swe-agent',
        format: 'swe-agent-traj',
        domain: ctf ? 'ctf' : 'swe',
        instanceId,
        goal,
        steps: drafts,
        tools,
        environment: { repo: repoFromInstanceId(instanceId), base_commit: repoCfg.str('base_commit'), workdir, image: deployment.str('image') },
        agent: { model, agent_class: 'swe-agent', system_prompt: systemPrompt },
        outcome: { exit_status: info.str('exit_status'), submission: info.str('submission'), self_report: info.str('exit_status') },
        metrics: {
          cost_usd: stats.num('instance_cost') ?? stats.num('total_cost'),
          api_calls: stats.num('api_calls'),
          tokens_in: stats.num('tokens_sent'),
          tokens_out: stats.num('tokens_received'),
        },
      },
      ctx,
    );
  },
};
