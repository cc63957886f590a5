import { hash } from 'node:crypto';
import { harnessDocHash, parseJsonValue, skipValue, skipWs, topLevelSpans } from './json-text.js';

/**
 * One harness sample line parsed for the reader: the small top-level fields parsed, the big
 * ones (`doc`, `arguments`, `resps`) only located, and what the record checks need from the
 * big ones computed from their raw text (the harness's doc hash, the prompt's hash, our
 * question id).
 *
 * Every model's samples file of one task repeats the same `doc_id`, `doc`, `target` and
 * `arguments` text before `"resps"`; a `LinePrefixCache` keeps what was computed from such a
 * prefix, keyed by its exact text, so the next line that starts with the same text resumes the
 * scan where the prefix ends. The scan is a function of the text alone, so a hit gives what
 * a full scan gives.
 */
export interface LineContent {
  /** sha256 of `json.dumps(doc, indent=2)` recomputed from the doc's own text; undefined without a doc. */
  docHash?: string;
  /** sha256 of the logged prompt (`arguments.gen_args_0.arg_0`); undefined when the record has no string prompt. */
  promptHash?: string;
  /** sha256 of the target when it is a string. */
  targetHash?: string;
  /** Our question id (`doc.id`), '' when absent. */
  questionId: string;
}

export interface ParsedLine {
  rec: Record<string, unknown>;
  content: LineContent;
}

const sha256 = (s: string) => hash('sha256', s, 'hex');

/** Python's json.dumps writes NaN/Infinity as bare tokens; they become this marker + the token, so the value is reported as written, not the line. */
export const NAN_SENTINEL = '\u0000non-finite:';

/** Fields never parsed whole: skipping them keeps big prompts and responses cheap. */
const UNPARSED = new Set(['doc', 'resps', 'arguments']);
/** Fields whose content the prefix cache stands for: a later duplicate of one disables the cache for that line. */
const PREFIX_KEYS = new Set(['doc_id', 'doc', 'target', 'arguments']);
const PREFIX_LIST = [...PREFIX_KEYS];
const RESPS_KEY = ', "resps": ';

interface PrefixEntry {
  prefix: string;
  fields: [string, unknown][];
  content: LineContent;
}

/**
 * Bounded by the characters it holds; emptied when full (one task's prefixes fit many times
 * over). Slots are found by a short key (length, head, tail) and an entry is used only when its
 * whole prefix equals the line's: hashing kilobytes of prefix per line would cost more than the
 * comparison.
 */
export class LinePrefixCache {
  private readonly entries = new Map<string, PrefixEntry>();
  private chars = 0;
  constructor(private readonly maxChars = 8 << 20) {}
  private static slot(prefix: string): string {
    return prefix.length < 160 ? prefix : `${prefix.length}:${prefix.slice(0, 80)}${prefix.slice(-64)}`;
  }
  get(prefix: string): PrefixEntry | undefined {
    const entry = this.entries.get(LinePrefixCache.slot(prefix));
    return entry && entry.prefix === prefix ? entry : undefined;
  }
  set(prefix: string, entry: Omit<PrefixEntry, 'prefix'>): void {
    if (this.chars + prefix.length > this.maxChars) {
      this.entries.clear();
      this.chars = 0;
    }
    // A flat copy: the entry must not keep the whole line it was sliced from alive.
    const own = Buffer.from(prefix, 'utf8').toString('utf8');
    this.entries.set(LinePrefixCache.slot(own), { prefix: own, ...entry });
    this.chars += prefix.length;
  }
}

/**
 * The record on `text` with its content hashes, or undefined when the line is not one JSON
 * object. `fast` false parses every line whole (the doc text is still located for its hash).
 */
export function parseSampleLine(text: string, fast: boolean, cache?: LinePrefixCache): ParsedLine | undefined {
  const cut = fast && cache ? text.indexOf(RESPS_KEY) : -1;
  const prefix = cut > 0 ? text.slice(0, cut) : undefined;
  const hit = prefix !== undefined ? cache!.get(prefix) : undefined;
  if (hit) {
    // The rest of the line is small (filter, hashes, metric values): one native parse, after
    // the responses (not needed; skipped by brackets, never built).
    const respsEnd = skipValue(text, cut + RESPS_KEY.length);
    const comma = respsEnd > 0 ? skipWs(text, respsEnd) : -1;
    const rec = comma > 0 && text.charCodeAt(comma) === 0x2c ? parseFull(`{${text.slice(comma + 1)}`) : undefined;
    if (rec && !PREFIX_LIST.some((k) => Object.hasOwn(rec, k))) {
      for (const [k, v] of hit.fields) rec[k] = v;
      return { rec, content: hit.content };
    }
  }
  const spans = topLevelSpans(text);
  const docRaw = spans?.get('doc');
  const doc = docRaw ? text.slice(docRaw[0], docRaw[1]) : undefined;
  const rec = (fast && spans ? fromSpans(text, spans, promptOf(text, spans)) : undefined) ?? parseFull(text);
  if (!rec) return undefined;
  // Cached only when the prefix ends exactly where the top-level "resps" key begins; a cached
  // prefix has every hash computed (a later line with the same prefix may carry hashes this one lacks).
  const resps = spans?.get('resps');
  const cacheable = prefix !== undefined && fast && resps !== undefined && resps[0] - 9 === cut + 2 && text.startsWith('"resps": ', cut + 2);
  const content = contentOf(rec, doc, cacheable);
  if (cacheable) cache!.set(prefix, { fields: [...spans!.keys()].filter((k) => PREFIX_KEYS.has(k) && k in rec).map((k) => [k, rec[k]]), content });
  return { rec, content };
}

/**
 * The content hashes of a record (≤0.4.2 array files carry no doc text: docHash stays
 * undefined). Without `all`, only the hashes the record stores are computed.
 */
export function contentOf(rec: Record<string, unknown>, docRaw: string | undefined, all = false): LineContent {
  const args = rec.arguments as Record<string, Record<string, unknown>> | undefined;
  const prompt = args && typeof args === 'object' ? args.gen_args_0?.arg_0 : undefined;
  const content: LineContent = { questionId: questionIdOf(docRaw) };
  if (docRaw !== undefined && (all || typeof rec.doc_hash === 'string')) content.docHash = harnessDocHash(docRaw);
  if (typeof prompt === 'string' && (all || typeof rec.prompt_hash === 'string')) content.promptHash = sha256(prompt);
  if (typeof rec.target === 'string' && (all || typeof rec.target_hash === 'string')) content.targetHash = sha256(rec.target);
  return content;
}

/** Our question id: a non-empty string `id` at the top level of the doc text. */
export function questionIdOf(docRaw: string | undefined): string {
  if (!docRaw) return '';
  const at = topLevelSpans(docRaw)?.get('id');
  if (!at) return '';
  try {
    const id: unknown = parseJsonValue(docRaw.slice(at[0], at[1]));
    return typeof id === 'string' && id.trim() !== '' ? id : '';
  } catch {
    return '';
  }
}

/** `arguments.gen_args_0.arg_0` (the prompt the harness hashes), read through nested spans only. */
function promptOf(text: string, spans: Map<string, [number, number]>): Record<string, unknown> | undefined {
  const at = spans.get('arguments');
  if (!at) return undefined;
  const args = text.slice(at[0], at[1]);
  const g = topLevelSpans(args)?.get('gen_args_0');
  if (!g) return {};
  const first = args.slice(g[0], g[1]);
  const p = topLevelSpans(first)?.get('arg_0');
  if (!p) return { gen_args_0: {} };
  try {
    return { gen_args_0: { arg_0: parseJsonValue(first.slice(p[0], p[1])) } };
  } catch {
    return { gen_args_0: {} };
  }
}

/** The record from its top-level spans, each parsed alone (bare NaN/Infinity become the marker). */
function fromSpans(text: string, spans: Map<string, [number, number]>, args: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const rec: Record<string, unknown> = {};
  if (args) rec.arguments = args;
  for (const [key, [a, b]] of spans) {
    if (UNPARSED.has(key)) continue;
    const raw = text.slice(a, b);
    try {
      rec[key] = parseJsonValue(raw);
    } catch {
      // Bare NaN / Infinity (Python's json.dumps) inside the value: parse it with the marker.
      const value = parseFull(`{"v":${raw}}`);
      if (!value) return undefined;
      rec[key] = value.v;
    }
  }
  return rec;
}

export function parseFull(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!/NaN|Infinity/.test(text)) return undefined;
    try {
      value = JSON.parse(replaceNonFinite(text));
    } catch {
      return undefined;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Replaces bare NaN / Infinity / -Infinity tokens outside strings with a marker string. */
function replaceNonFinite(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      out += ch;
      continue;
    }
    const token = text.startsWith('NaN', i) ? 'NaN' : text.startsWith('-Infinity', i) ? '-Infinity' : text.startsWith('Infinity', i) ? 'Infinity' : undefined;
    if (token) {
      out += JSON.stringify(NAN_SENTINEL + token);
      i += token.length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}
