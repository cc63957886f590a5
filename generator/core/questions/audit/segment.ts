/**
 * Where an MCQ's scored question lives inside its prompt, and what it offers. Shortcut rules
 * read options against the question segment only (not the instructions, the shared tool list
 * or the few-shot examples), or overlap with the shots saturates every option. New builds
 * record `question_start` and `build.offered_tools`; for older files and for APTBench's own
 * questions both are derived from the prompt, and the audit reports how many were derived.
 */
import type { McqQuestion } from '../types.js';
import { collapseWhitespace } from './text.js';

export type SegmentSource = 'field' | 'after-shots' | 'whole-prompt';
export type ToolsSource = 'field' | 'tool-list' | 'none';

export interface QuestionSegment {
  /** Offset into `prompt` where the scored question begins. */
  start: number;
  source: SegmentSource;
  /** The whole prompt with the scored choice list cut out, whitespace collapsed: what copy-detection searches. */
  context: string;
  /** The question segment with its choice list and tool list cut out: the question and trajectory so far. */
  trajectory: string;
  /** Tool names the question offers; null when neither recorded nor listed in the prompt. */
  offeredTools: ReadonlySet<string> | null;
  toolsSource: ToolsSource;
}

const cache = new WeakMap<object, QuestionSegment>();

/** The segment of `q`, computed once per question object. */
export function questionSegment(q: McqQuestion): QuestionSegment {
  let out = cache.get(q);
  if (out === undefined) cache.set(q, (out = computeSegment(q)));
  return out;
}

function computeSegment(q: McqQuestion): QuestionSegment {
  const prompt = q.prompt;
  const { start, source } = segmentStart(q);
  const choiceBlock = choiceBlockSpan(prompt, q.choices, start);
  const [blockStart, blockEnd] = choiceBlock ?? [prompt.length, prompt.length];
  const context = collapseWhitespace(prompt.slice(0, blockStart) + '\n' + prompt.slice(blockEnd));
  const segmentText = prompt.slice(start, Math.max(start, blockStart));
  const toolList = findToolList(segmentText);
  const trajectory = toolList ? segmentText.slice(0, toolList.start) + segmentText.slice(toolList.end) : segmentText;
  let offeredTools: ReadonlySet<string> | null = null;
  let toolsSource: ToolsSource = 'none';
  if (Array.isArray(q.build?.offered_tools)) {
    offeredTools = new Set(q.build.offered_tools);
    toolsSource = 'field';
  } else if (toolList && toolList.names.length > 0) {
    offeredTools = new Set(toolList.names);
    toolsSource = 'tool-list';
  }
  return { start, source, context, trajectory: collapseWhitespace(trajectory), offeredTools, toolsSource };
}

/**
 * `question_start` when recorded. Otherwise the builder's few-shot layout is recognised: each
 * shot ends with the answer stem and its letter, then a blank line, so the scored question
 * starts after the last stem that is not the prompt's own closing stem. Without such a stem
 * the whole prompt is the segment.
 */
export function segmentStart(q: Pick<McqQuestion, 'prompt' | 'answer_stem' | 'question_start'>): { start: number; source: SegmentSource } {
  const prompt = q.prompt;
  if (Number.isInteger(q.question_start) && q.question_start! >= 0 && q.question_start! <= prompt.length) return { start: q.question_start!, source: 'field' };
  const stem = q.answer_stem.trim();
  if (stem.length >= 4) {
    const closing = prompt.endsWith(q.answer_stem) ? prompt.length - q.answer_stem.length : prompt.length;
    const last = prompt.lastIndexOf(stem, closing - 1);
    if (last >= 0) {
      const blank = prompt.indexOf('\n\n', last);
      const lineEnd = prompt.indexOf('\n', last);
      const start = blank >= 0 && blank < closing ? blank + 2 : lineEnd >= 0 && lineEnd < closing ? lineEnd + 1 : -1;
      if (start > 0) return { start, source: 'after-shots' };
    }
  }
  return { start: 0, source: 'whole-prompt' };
}

/**
 * The span of the rendered choice list of the scored question: from the first to the end of
 * the last option, each where `renderedAt` places it, at or after `from`. Null when the
 * prompt does not render every option verbatim.
 */
function choiceBlockSpan(prompt: string, choices: readonly string[], from: number): [number, number] | null {
  if (choices.some((c) => c.length === 0)) return null;
  const at = renderedAt(prompt, choices);
  let lo = Number.POSITIVE_INFINITY;
  let hi = -1;
  for (const [i, choice] of choices.entries()) {
    if (at[i]! < from) return null;
    lo = Math.min(lo, at[i]!);
    hi = Math.max(hi, at[i]! + choice.length);
  }
  if (hi < 0) return null;
  // Include the "(A) " marker in front of the first option.
  const lineStart = prompt.lastIndexOf('\n', lo - 1) + 1;
  return [/^\s*\(?[A-Z][).:]\s*$/.test(prompt.slice(lineStart, lo)) ? lineStart : lo, hi];
}

/**
 * Where each option is rendered: its last occurrence, longest options first, skipping any that
 * lies inside a longer option's. An option that begins another ("mkdir -p /src" beside
 * "mkdir -p /src/build") is found where it is shown, not inside the longer one, where the
 * choice list would be taken to start after it and the option be read as part of the prompt.
 */
function renderedAt(prompt: string, choices: readonly string[]): number[] {
  const at = choices.map(() => -1);
  const placed: Array<[number, number]> = [];
  const order = choices.map((_, i) => i).sort((a, b) => choices[b]!.length - choices[a]!.length);
  for (const i of order) {
    const choice = choices[i]!;
    let pos = prompt.lastIndexOf(choice);
    while (pos >= 0 && placed.some(([s, e]) => pos >= s && pos + choice.length <= e)) pos = pos > 0 ? prompt.lastIndexOf(choice, pos - 1) : -1;
    at[i] = pos;
    if (pos >= 0) placed.push([pos, pos + choice.length]);
  }
  return at;
}

const TOOL_HEADER = /^(?:Tool set|Tools|Available tools|工具集|可用工具)\s*[:：]\s*$/im;
const TOOL_LINE = /^\s*(?:\(\d+\)|\d+[.)]|[-*])\s*(.*)$/;

/**
 * A tool list as the builder and APTBench render it: a `Tool set:` header, then one numbered
 * line per tool holding a JSON object with a `name`. The list ends at the first other line.
 */
export function findToolList(text: string): { start: number; end: number; names: string[] } | null {
  const header = TOOL_HEADER.exec(text);
  if (!header) return null;
  const start = header.index;
  let end = start + header[0].length;
  const names: string[] = [];
  let cursor = end + (text[end] === '\n' ? 1 : 0);
  while (cursor < text.length) {
    const next = text.indexOf('\n', cursor);
    const lineEnd = next < 0 ? text.length : next;
    const line = text.slice(cursor, lineEnd);
    if (line.trim() === '') {
      cursor = lineEnd + 1;
      continue;
    }
    const m = TOOL_LINE.exec(line);
    if (!m) break;
    const name = toolNameOf(m[1]!);
    if (name) names.push(name);
    end = lineEnd;
    cursor = lineEnd + 1;
  }
  return { start, end, names };
}

function toolNameOf(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { name?: unknown }).name === 'string') return (parsed as { name: string }).name;
  } catch {
    // Not JSON: fall through to the loose patterns.
  }
  const named = /"name"\s*:\s*"([^"]+)"/.exec(text);
  if (named) return named[1]!;
  const bare = /^`?([A-Za-z_][\w.-]*)`?\s*(?:[:(—-]|$)/.exec(text.trim());
  return bare ? bare[1]! : null;
}

const optionTools = new Map<string, string | null>();

/**
 * The tool an option calls, when the option says so structurally: APTBench's
 * `{"planning", "execution": {"name"}}`, a `{"name": …}` call, or `<function=name>`. Plain
 * text (a plan sentence, a shell command) has no recognisable tool: null.
 */
export function optionTool(option: string): string | null {
  const known = optionTools.get(option);
  if (known !== undefined) return known;
  const tool = parseOptionTool(option);
  if (optionTools.size > 50_000) optionTools.clear();
  optionTools.set(option, tool);
  return tool;
}

function parseOptionTool(option: string): string | null {
  const trimmed = option.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as Record<string, unknown>;
      const execution = parsed.execution as Record<string, unknown> | undefined;
      if (execution && typeof execution === 'object' && typeof execution.name === 'string') return execution.name;
      if (typeof parsed.name === 'string') return parsed.name;
      const call = (parsed.function ?? parsed.tool) as unknown;
      if (typeof call === 'string') return call;
      if (call && typeof call === 'object' && typeof (call as { name?: unknown }).name === 'string') return (call as { name: string }).name;
    } catch {
      // Not JSON.
    }
  }
  const fn = /<function=([A-Za-z_][\w.-]*)>/.exec(trimmed);
  return fn ? fn[1]! : null;
}

/** Tools that run any command: an option calling anything is on-tool when one of these is offered. */
const SHELL_TOOLS = new Set(['bash', 'shell', 'execute_bash', 'run', 'terminal', 'cmd', 'execute_command', 'run_command']);

/** True when the option's tool is known, the offered set is known, and the tool is not in it. */
export function callsToolNotOffered(q: McqQuestion, option: string): boolean {
  const offered = questionSegment(q).offeredTools;
  if (!offered || offered.size === 0) return false;
  const tool = optionTool(option);
  if (tool === null || offered.has(tool)) return false;
  for (const shell of SHELL_TOOLS) if (offered.has(shell)) return false;
  return true;
}
