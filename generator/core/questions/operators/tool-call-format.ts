/**
 * The agent's own call format, for issue_fix_tool_call_tc: function-calling agents write
 * `{"name": …, "arguments": {…}}`, command agents (SWE-agent classic, mini-swe-agent) write a
 * command line. The emitted utils.py scorer (`tool_call_match`) parses both sides the same way;
 * `callKey` here mirrors it so the builder can tell two calls apart exactly as scoring will.
 */
import { singleSpaced } from '../../kernel/whitespace.js';
import type { Step, Trajectory } from '../../trajectories/types.js';
import { normaliseCommand } from '../normalise.js';

export type CallFormat = 'json' | 'command';

/** Longest target: a generation is one line of at most ~512 tokens. */
export const MAX_CALL_CHARS = 1000;

export function callFormatOf(t: Trajectory): CallFormat {
  const fw = t.source.framework;
  if (fw === 'mini-swe-agent') return 'command';
  if (fw === 'swe-agent') {
    // The function-calling variant's tools are inferred from history[].tool_calls; the classic
    // variant declares its command set (and the agent writes commands).
    // (A tool called without arguments has no inferred schema, so one inferred tool decides.)
    const inferred = (x: { parameters?: Record<string, unknown> | null }) => x.parameters?.['x-inferred'] === true;
    return t.environment.tools.some(inferred) ? 'json' : 'command';
  }
  if (fw === 'openhands' || t.source.format === 'chat-messages-jsonl') return 'json';
  return 'command';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** The call as the agent would write it, on one line; null when the step is not a call. */
export function callText(step: Step, format: CallFormat): string | null {
  const a = step.action;
  if (a.kind === 'message' || a.kind === 'finish' || a.kind === 'llm_call' || !a.tool) return null;
  if (format === 'json') return JSON.stringify({ name: a.tool, arguments: sortKeys(a.args) });
  const raw = (a.raw ?? a.text).trim();
  if (raw.includes('\n')) return null;
  return normaliseCommand(raw);
}

/** Whitespace-collapsed scalars as strings: `"15"` and `15` are the same argument. */
function normaliseValue(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return singleSpaced(value).trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(normaliseValue);
  if (typeof value === 'object') return Object.fromEntries(Object.keys(value as object).sort().map((k) => [k, normaliseValue((value as Record<string, unknown>)[k])]));
  return String(value);
}

/** Shell-like split: quotes group, quote characters removed (enough for comparing calls). */
export function splitCommand(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  let has = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
      has = true;
    }
  }
  if (has || cur) out.push(cur);
  return out;
}

/** The (name, arguments) key exact match compares; null when the text is not a call. */
export function callKey(text: string, format: CallFormat): string | null {
  if (format === 'json') {
    let obj: unknown;
    try {
      obj = JSON.parse(text.trim());
    } catch {
      return null;
    }
    if (!obj || typeof obj !== 'object') return null;
    const o = obj as Record<string, unknown>;
    const fn = (o.function && typeof o.function === 'object' ? o.function : o) as Record<string, unknown>;
    let args = fn.arguments ?? fn.args ?? {};
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        return null;
      }
    }
    if (typeof fn.name !== 'string') return null;
    return JSON.stringify([fn.name.trim(), normaliseValue(args)]);
  }
  const parts = splitCommand(normaliseCommand(text)).map((p) => singleSpaced(p).trim());
  return parts.length ? JSON.stringify([parts[0], parts.slice(1)]) : null;
}
