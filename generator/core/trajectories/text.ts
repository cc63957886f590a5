/**
 * Deterministic text helpers shared by the readers: canonical one-line action text, derived
 * plans, goal extraction and language detection. Nothing here depends on the source format.
 */
import { singleSpaced } from '../kernel/whitespace.js';
import type { ActionKind } from './types.js';

/** Tools whose arguments are a shell command. */
const SHELL_TOOLS = new Set(['bash', 'execute_bash', 'shell', 'run', 'terminal', 'cmd', 'sh', 'execute_command', 'run_command']);
const MAX_LINE = 400;

export function isShellTool(tool: string | null | undefined): boolean {
  return tool != null && SHELL_TOOLS.has(tool);
}

/** First non-blank line, trimmed; `\r` and tabs never survive into a canonical line. */
export function firstLine(text: string): string {
  // Walks line by line instead of splitting: the text can be a whole file, the answer is near the top.
  for (let start = 0; start <= text.length; ) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).replace(/\r/g, '').replace(/\t/g, ' ').trim();
    if (line) return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
    start = end + 1;
  }
  return '';
}

function argText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return firstLine(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return firstLine(JSON.stringify(value));
}

/**
 * The canonical single line next-action questions match against: the first line of a shell
 * command, `str_replace_editor view /testbed/x.py` for editor tools, otherwise the tool name
 * followed by its argument values in the order the source gave them.
 */
export function canonicalActionText(kind: ActionKind, tool: string | null, args: Record<string, unknown>, raw?: string | null): string {
  if (kind === 'shell') {
    const command = typeof args.command === 'string' ? args.command : typeof args.cmd === 'string' ? args.cmd : raw ?? '';
    return firstLine(command) || (tool ?? 'shell');
  }
  if (kind === 'message') return firstLine(typeof args.content === 'string' ? args.content : raw ?? '') || 'message';
  if (tool && typeof args.command === 'string' && typeof args.path === 'string') {
    return `${tool} ${firstLine(args.command)} ${firstLine(args.path)}`;
  }
  const parts: string[] = tool ? [tool] : [];
  for (const [key, value] of Object.entries(args)) {
    if (key === 'thought') continue;
    const text = argText(value);
    if (text) parts.push(text);
  }
  const line = parts.join(' ').trim();
  if (line) return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
  return firstLine(raw ?? '') || kind;
}

/** Collapses whitespace; the plan and goal summaries are single lines. */
export function oneLine(text: string): string {
  return singleSpaced(text).trim();
}

const PLAN_LIMIT = 200;
/** Characters of a thought read for its plan (see derivePlan). */
const PLAN_SCAN = 4 * PLAN_LIMIT;

function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * One-line intent for a step whose source has no plan: the thought's first sentence, or a
 * description of the action when there is no thought. Same input, same plan.
 */
export function derivePlan(thought: string | null, kind: ActionKind, tool: string | null, actionText: string): string {
  const stripped = thought ? thought.replace(/^\s*(THOUGHT|Thought|DISCUSSION)\s*:\s*/, '') : '';
  // Only the first sentence, clipped to PLAN_LIMIT, survives, so a long thought is collapsed
  // from a prefix. The plan comes out the same whenever the collapsed prefix is longer than
  // PLAN_LIMIT + 1: a sentence ending inside it ends there in the whole text too, and any
  // longer result is clipped to its first PLAN_LIMIT characters, which the prefix holds.
  let cleaned = oneLine(stripped.length > PLAN_SCAN ? stripped.slice(0, PLAN_SCAN) : stripped);
  if (stripped.length > PLAN_SCAN && cleaned.length <= PLAN_LIMIT + 1) cleaned = oneLine(stripped);
  if (cleaned) {
    // A sentence ends at . ! ? followed by space or end, or at a CJK full stop; "e.g." style
    // abbreviations are rare enough in agent thoughts that a simple rule is the honest one.
    const match = /^(.+?(?:[.!?](?=\s|$)|[。！？]))/u.exec(cleaned);
    return clip(match ? match[1]! : cleaned, PLAN_LIMIT);
  }
  switch (kind) {
    case 'shell':
      return clip(`Run \`${actionText}\``, PLAN_LIMIT);
    case 'finish':
      return 'Finish and submit the result';
    case 'message':
      return clip(`Reply: ${actionText}`, PLAN_LIMIT);
    default:
      return clip(`Call ${tool ?? 'a tool'}: ${actionText}`, PLAN_LIMIT);
  }
}

const CJK_CHAR = /^[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]$/;
const LETTER = /^\p{L}$/u;

/** `zh` / `ja` / `ko` when a noticeable share of the letters are in those scripts, else `en`. */
export function detectLanguage(text: string): string {
  const sample = text.slice(0, 4000);
  let cjk = 0;
  let letters = 0;
  // Counted per code point, as /\p{L}/gu would; ASCII is decided without a regex (most goals
  // are English, and matching builds an array of every letter).
  for (const ch of sample) {
    const code = ch.charCodeAt(0);
    if (code < 0x80) {
      if ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) letters++;
    } else {
      if (LETTER.test(ch)) letters++;
      if (CJK_CHAR.test(ch)) cjk++;
    }
  }
  if (letters === 0 || cjk / letters < 0.2) return 'en';
  // The majority script decides: a Chinese question quoting a Korean title (`《狗与狼的时间》（개와
  // 늑대의 시간）`) is Chinese. Japanese mixes kana into Han text, so a fifth of kana is enough.
  const hangul = sample.match(/[\uac00-\ud7af]/g)?.length ?? 0;
  const kana = sample.match(/[\u3040-\u30ff]/g)?.length ?? 0;
  if (hangul * 2 > cjk) return 'ko';
  if (kana * 5 >= cjk) return 'ja';
  return 'zh';
}

/**
 * The trajectory's natural language: the goal decides when it has enough letters to judge;
 * a short or letter-less goal (a bare URL, an id) is judged together with the agent's first
 * thoughts, which are what a question's context mostly shows.
 */
export function detectTrajectoryLanguage(goal: string, thoughts: ReadonlyArray<string | null>): string {
  if (countLetters(goal.slice(0, 4000)) >= MIN_GOAL_LETTERS) return detectLanguage(goal);
  let text = goal;
  for (const t of thoughts) {
    if (text.length >= 4000) break;
    if (t) text += `\n${t}`;
  }
  return detectLanguage(text);
}
/** Below this many letters a goal alone is too short to say which language it is in. */
const MIN_GOAL_LETTERS = 20;

/** Letters, a CJK character counting as a word's worth (4): `塔林最高的塔有多高？` is plenty to judge. */
function countLetters(text: string): number {
  let letters = 0;
  for (const ch of text) if (LETTER.test(ch)) letters += CJK_CHAR.test(ch) ? 4 : 1;
  return letters;
}

/**
 * Capture-the-flag / security-challenge wording (SWE-agent's CTF mode, picoCTF, Hack The Box,
 * CSAW). A bare "flag" is not enough: SWE issues talk about command-line flags all the time.
 */
const CTF_WORDING = /\bCTF\b|capture[- ]the[- ]flag|picoCTF|\bHTB\b|hack ?the ?box|\bflag\s*\{|\bflag format\b|(?:find|get|retrieve|submit|capture|recover) the flag\b/i;

export function looksLikeCtf(text: string): boolean {
  return CTF_WORDING.test(text.slice(0, 20000));
}

/**
 * Pulls the issue text out of the wrappers agent frameworks put around it (SWE-agent's
 * `ISSUE: … INSTRUCTIONS:` and its CTF statement before `INSTRUCTIONS:`, `<pr_description>`, OpenHands' `<issue_description>`,
 * mini-swe-agent's `Please solve this issue: …`). Unwrapped text is returned as is.
 */
export function extractGoal(text: string): string {
  const tagged = /<(pr_description|issue_description|issue|problem_statement|task)>\s*([\s\S]*?)\s*<\/\1>/.exec(text);
  if (tagged?.[2]) return tagged[2].trim();
  const issue = /ISSUE:\s*\n([\s\S]*?)\n\s*INSTRUCTIONS:/.exec(text);
  if (issue?.[1]) return issue[1].trim();
  // SWE-agent's CTF mode: the challenge statement, then the same generic INSTRUCTIONS block.
  const ctf = /^\s*(We're currently solving the following CTF challenge\.[\s\S]*?)\n\s*INSTRUCTIONS:/.exec(text);
  if (ctf?.[1]) return ctf[1].trim();
  const please = /^\s*Please solve this issue:\s*([\s\S]*?)(\n\s*\nYou can execute bash commands[\s\S]*)?$/.exec(text);
  if (please?.[1]) return please[1].trim();
  return text.trim();
}

/** SWE-bench ids look like `owner__repo-1234`; the repository is `owner/repo`. */
export function repoFromInstanceId(instanceId: string): string | null {
  const m = /^([A-Za-z0-9_.-]+?)__([A-Za-z0-9_.-]+)-\d+$/.exec(instanceId);
  return m ? `${m[1]}/${m[2]}` : null;
}

/** A cheap, tokenizer-free estimate: about four characters per token for English and code. */
export function estimateTokensFromChars(chars: number): number {
  return Math.ceil(chars / 4);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
