import { Buffer } from 'node:buffer';
import { hash } from 'node:crypto';
import { tailFields, type TailEntry } from './line-tail.js';
import { harnessDocHash, NAN_SENTINEL, parseFull, parseJsonValue, skipValue, skipWs, topLevelSpans } from './json-text.js';

export { NAN_SENTINEL, parseFull };

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

/** Fields never parsed whole: skipping them keeps big prompts and responses cheap. */
const UNPARSED = new Set(['doc', 'resps', 'arguments']);
/** Fields whose content the prefix cache stands for: a later duplicate of one disables the cache for that line. */
const PREFIX_KEYS = new Set(['doc_id', 'doc', 'target', 'arguments']);
const PREFIX_LIST = [...PREFIX_KEYS];
const RESPS_KEY = ', "resps": ';

interface PrefixEntry {
  prefix: Buffer;
  fields: [string, unknown][];
  content: LineContent;
  /** Post segments seen after this prefix (`line-tail.ts`). */
  tails: TailEntry[];
  /** Bytes of `tails`' segments. */
  tailBytes: number;
}

/** Post segments kept per prefix; a lookup compares each of them. */
const TAILS_PER_PREFIX = 8;

/** Bytes of a line's head that find its cache slot; shorter prefixes are not cached. */
const HEAD = 64;

/**
 * Bounded by the bytes it holds; emptied when full (one task's prefixes fit many times over).
 * A slot is found by the line's first bytes (the doc_id and the start of the doc), so a lookup
 * needs no search for the end of the prefix; an entry is used only when the line continues
 * with `, "resps": ` right where the entry's prefix ends and its whole prefix equals the
 * line's, byte for byte (one native comparison): a hit is never trusted on the slot alone.
 */
export class LinePrefixCache {
  private readonly entries = new Map<number, PrefixEntry[]>();
  private bytes = 0;
  constructor(private readonly maxBytes = 8 << 20) {}
  /** FNV-1a of the line's first HEAD bytes. */
  private static slot(buf: Uint8Array, from: number): number {
    let h = 2166136261;
    for (let i = from, e = from + HEAD; i < e; i++) h = Math.imul(h ^ buf[i]!, 16777619);
    return h >>> 0;
  }
  /** The entry whose prefix `buf[from, to)` starts with, followed by `, "resps": `. */
  get(buf: Buffer, from: number, to: number): PrefixEntry | undefined {
    if (to - from < HEAD + RESPS_BYTES.length) return undefined;
    const chain = this.entries.get(LinePrefixCache.slot(buf, from));
    if (!chain) return undefined;
    for (const entry of chain) {
      const cut = from + entry.prefix.length;
      if (cut + RESPS_BYTES.length > to || !startsWithResps(buf, cut)) continue;
      if (buf.compare(entry.prefix, 0, entry.prefix.length, from, cut) === 0) return entry;
    }
    return undefined;
  }
  /** Keeps what was computed from the prefix `buf[from, cut)` (the line goes on with `, "resps": `). */
  set(buf: Buffer, from: number, cut: number, entry: Pick<PrefixEntry, 'fields' | 'content'>): void {
    if (cut - from < HEAD) return;
    if (this.bytes + (cut - from) > this.maxBytes) {
      this.entries.clear();
      this.bytes = 0;
    }
    const key = LinePrefixCache.slot(buf, from);
    let chain = this.entries.get(key);
    if (!chain) this.entries.set(key, (chain = []));
    // Prefixes that share a head are kept a few at a time: a lookup checks each of them.
    if (chain.length >= 8) {
      const old = chain.shift()!;
      this.bytes -= old.prefix.length + old.tailBytes;
    }
    // A copy: the entry must not keep the whole file it was cut from alive.
    chain.push({ prefix: Buffer.from(buf.subarray(from, cut)), ...entry, tails: [], tailBytes: 0 });
    this.bytes += cut - from;
  }
  /** The record's fields after `hit`'s prefix, read through its kept post segments (`line-tail.ts`); undefined: parse the tail as text. */
  tail(hit: PrefixEntry, buf: Buffer, at: number, to: number): Record<string, unknown> | undefined {
    return tailFields(buf, at, to, hit.tails, PREFIX_KEYS, (entry) => {
      // A few per prefix, within the cache's bound (a later `set` empties a full cache).
      if (hit.tails.length >= TAILS_PER_PREFIX || this.bytes + entry.post.length > this.maxBytes) return;
      hit.tails.push(entry);
      hit.tailBytes += entry.post.length;
      this.bytes += entry.post.length;
    });
  }
}

const RESPS_BYTES = Buffer.from(RESPS_KEY);

function startsWithResps(buf: Uint8Array, at: number): boolean {
  for (let i = 0; i < RESPS_BYTES.length; i++) if (buf[at + i] !== RESPS_BYTES[i]) return false;
  return true;
}

/**
 * The record on `text` with its content hashes, or undefined when the line is not one JSON
 * object. `fast` false parses every line whole (the doc text is still located for its hash).
 */
export function parseSampleLine(text: string, fast: boolean, cache?: LinePrefixCache): ParsedLine | undefined {
  const buf = Buffer.from(text, 'utf8');
  return parseSampleBytes(buf, 0, buf.length, fast, cache);
}

/**
 * `parseSampleLine` of the valid UTF-8 line `buf[from, to)`. A line whose prefix is cached is
 * decoded only from its responses on.
 */
export function parseSampleBytes(buf: Buffer, from: number, to: number, fast: boolean, cache?: LinePrefixCache): ParsedLine | undefined {
  const hit = fast && cache ? cache.get(buf, from, to) : undefined;
  if (hit) {
    const fields = cache!.tail(hit, buf, from + hit.prefix.length + RESPS_BYTES.length, to);
    if (fields) {
      for (const [k, v] of hit.fields) fields[k] = v;
      return { rec: fields, content: hit.content };
    }
    // The rest of the line is small (filter, hashes, metric values): one native parse, after
    // the responses (not needed; skipped by brackets, never built).
    const tail = buf.toString('utf8', from + hit.prefix.length, to);
    const respsEnd = skipValue(tail, RESPS_KEY.length);
    const comma = respsEnd > 0 ? skipWs(tail, respsEnd) : -1;
    const rec = comma > 0 && tail.charCodeAt(comma) === 0x2c ? parseFull(`{${tail.slice(comma + 1)}`) : undefined;
    if (rec && !PREFIX_LIST.some((k) => Object.hasOwn(rec, k))) {
      for (const [k, v] of hit.fields) rec[k] = v;
      return { rec, content: hit.content };
    }
  }
  const text = buf.toString('utf8', from, to);
  const cut = fast && cache ? text.indexOf(RESPS_KEY) : -1;
  const spans = topLevelSpans(text);
  const docRaw = spans?.get('doc');
  const doc = docRaw ? text.slice(docRaw[0], docRaw[1]) : undefined;
  const rec = (fast && spans ? fromSpans(text, spans, promptOf(text, spans)) : undefined) ?? parseFull(text);
  if (!rec) return undefined;
  // Cached only when the prefix ends exactly where the top-level "resps" key begins; a cached
  // prefix has every hash computed (a later line with the same prefix may carry hashes this one lacks).
  const resps = spans?.get('resps');
  const cacheable = cut > 0 && fast && resps !== undefined && resps[0] - 9 === cut + 2 && text.startsWith('"resps": ', cut + 2);
  const content = contentOf(rec, doc, cacheable);
  // The prefix in bytes: an ASCII key's first occurrence in valid UTF-8 bytes is its first occurrence in the text.
  if (cacheable) cache!.set(buf, from, from + buf.subarray(from, to).indexOf(RESPS_BYTES), { fields: [...spans!.keys()].filter((k) => PREFIX_KEYS.has(k) && k in rec).map((k) => [k, rec[k]]), content });
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
