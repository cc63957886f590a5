import { Buffer } from 'node:buffer';
import { parseFull } from './json-text.js';

/**
 * The rest of a sample line whose prefix (`doc_id`, `doc`, `target`, `arguments`) is cached,
 * read from its bytes. The harness writes `, "resps": R, "filtered_resps": F` and then the
 * filter, the metrics list, the three hashes and the metric values: everything after F (the
 * line's "post" segment) is the same text in every model's record of a document, except the
 * metric values, which take few distinct values (0/1 per metric). Each post segment seen after
 * a prefix is kept with its parsed fields, and a line whose post segment equals a kept one,
 * byte for byte (one native comparison), gets those fields without parsing or decoding it.
 * The responses are skipped by brackets, never decoded (as before: they were never parsed);
 * `filtered_resps` is parsed on every line. The record is what one `JSON.parse` of
 * `{"filtered_resps": F<post>` gives, as the tail parse did; anything else (another field
 * order, a post segment that is not `, "key": …}` alone) returns undefined and the caller
 * parses the tail as text.
 */
export interface TailEntry {
  post: Buffer;
  /** The post segment parsed: its fields, in the order `JSON.parse` gives them. */
  fields: Record<string, unknown>;
}

const FILTERED = Buffer.from(', "filtered_resps": ');

/**
 * The record's fields after the prefix for the line `buf[…, to)` whose `, "resps": ` key ends
 * at `at`, or undefined (the caller falls back). `tails` are the prefix entry's kept post
 * segments, `forbidden` the keys a post segment may not hold (the prefix's); a segment not
 * among `tails` is parsed and handed to `keep`.
 */
export function tailFields(buf: Buffer, at: number, to: number, tails: readonly TailEntry[], forbidden: ReadonlySet<string>, keep: (entry: TailEntry) => void): Record<string, unknown> | undefined {
  const respsEnd = skipValueBytes(buf, at, to);
  if (respsEnd < 0 || !startsWith(buf, respsEnd, to, FILTERED)) return undefined;
  const fStart = respsEnd + FILTERED.length;
  const fEnd = skipValueBytes(buf, fStart, to);
  if (fEnd < 0 || buf[fEnd] !== 0x2c) return undefined;
  // At least one member after the comma (`{"filtered_resps": F,}` is not JSON, `{}` is).
  let key = fEnd + 1;
  while (key < to && isWs(buf[key]!)) key++;
  if (key >= to || buf[key] !== 0x22) return undefined;
  const len = to - fEnd;
  let entry: TailEntry | undefined;
  for (const t of tails) {
    if (t.post.length === len && buf.compare(t.post, 0, len, fEnd, to) === 0) {
      entry = t;
      break;
    }
  }
  if (!entry) {
    // `{` + the segment without its comma: valid JSON exactly when the whole tail's parse would accept this part.
    const parsed = parseFull(`{${buf.toString('utf8', fEnd + 1, to)}`);
    if (!parsed) return undefined;
    // A prefix key again (the later one wins in a parse of the whole line) or `__proto__` (assigning it would set the prototype): the text path decides.
    if (Object.keys(parsed).some((k) => forbidden.has(k) || k === '__proto__')) return undefined;
    entry = { post: Buffer.from(buf.subarray(fEnd, to)), fields: parsed };
    keep(entry);
  }
  const raw = buf.toString('utf8', fStart, fEnd);
  const value = stringRows(raw) ?? parseValue(raw);
  if (value === undefined) return undefined;
  const rec: Record<string, unknown> = { filtered_resps: value };
  const fields = entry.fields;
  for (const k in fields) rec[k] = fields[k];
  return rec;
}

/** `buf[at, to)` starts with `what`. */
/** `JSON.parse(raw)`; bare NaN / Infinity inside parse with the marker, as in a parse of the whole tail; undefined when not JSON. */
function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return parseFull(`{"v":${raw}}`)?.v;
  }
}

function startsWith(buf: Buffer, at: number, to: number, what: Buffer): boolean {
  if (at + what.length > to) return false;
  for (let i = 0; i < what.length; i++) if (buf[at + i] !== what[i]) return false;
  return true;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * `skipValue` (json-text.ts) over UTF-8 bytes: every character it looks for is ASCII, and no
 * byte of a multi-byte character is ASCII, so it finds the same end. Index just past the
 * value starting at `i` (after whitespace), or -1 when it is unbalanced or cut off before `to`.
 */
export function skipValueBytes(buf: Uint8Array, i: number, to: number): number {
  while (i < to && isWs(buf[i]!)) i++;
  if (i >= to) return -1;
  let depth = 0;
  for (; i < to; i++) {
    const c = buf[i]!;
    if (c === 0x22) {
      // A backslash escapes the byte after it; the first unescaped quote ends the string.
      let j = i + 1;
      for (; j < to; j++) {
        const d = buf[j]!;
        if (d === 0x5c) j++;
        else if (d === 0x22) break;
      }
      if (j >= to) return -1;
      i = j;
      if (depth === 0) return j + 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth < 0) return -1;
      if (depth === 0) return i + 1;
    } else if (depth === 0) {
      // A bare scalar: number, true, false, null, NaN, Infinity.
      let j = i;
      while (j < to && !isWs(buf[j]!) && buf[j] !== 0x2c && buf[j] !== 0x7d && buf[j] !== 0x5d) j++;
      return j > i ? j : -1;
    }
  }
  return -1;
}

/**
 * `JSON.parse(raw)` when `raw` is written exactly as the harness writes filtered responses of
 * a loglikelihood task, a list of lists of plain strings (`[["-0.5", "False"], ["-1.2",
 * "False"]]`: `", "` between items, no other whitespace, no escapes or control characters in
 * a string); undefined for anything else, which the caller hands to `JSON.parse`. The strings
 * are sliced from `raw` as they are: without escapes, a JSON string's value is its text.
 */
export function stringRows(raw: string): string[][] | undefined {
  const n = raw.length;
  if (n < 2 || raw.charCodeAt(0) !== 0x5b) return undefined;
  const rows: string[][] = [];
  if (raw.charCodeAt(1) === 0x5d) return n === 2 ? rows : undefined;
  let i = 1;
  for (;;) {
    if (raw.charCodeAt(i) !== 0x5b) return undefined;
    i++;
    const row: string[] = [];
    if (raw.charCodeAt(i) === 0x5d) i++;
    else
      for (;;) {
        if (raw.charCodeAt(i) !== 0x22) return undefined;
        let j = i + 1;
        for (; j < n; j++) {
          const c = raw.charCodeAt(j);
          if (c === 0x22) break;
          if (c === 0x5c || c < 0x20) return undefined;
        }
        if (j >= n) return undefined;
        row.push(raw.slice(i + 1, j));
        i = j + 1;
        if (raw.charCodeAt(i) === 0x5d) {
          i++;
          break;
        }
        if (raw.charCodeAt(i) !== 0x2c || raw.charCodeAt(i + 1) !== 0x20) return undefined;
        i += 2;
      }
    rows.push(row);
    if (raw.charCodeAt(i) === 0x5d) return i + 1 === n ? rows : undefined;
    if (raw.charCodeAt(i) !== 0x2c || raw.charCodeAt(i + 1) !== 0x20) return undefined;
    i += 2;
  }
}
