import { parseJson } from './json.js';
import { firstInvalidUtf8 } from './utf8.js';
import type { Vfs } from './vfs.js';

export interface Line {
  /** 1-based line number. */
  line: number;
  text: string;
  /** Byte offset of the line start in the file. */
  offset: number;
  /** False for a last line without a trailing newline (e.g. a killed writer). */
  terminated: boolean;
}

export type LineEvent =
  | ({ kind: 'line' } & Line)
  | { kind: 'invalid-utf8'; line: number; offset: number };

/**
 * Streams lines with numbers and byte offsets, decoding UTF-8 strictly per line so a
 * bad byte costs one line, not the whole file. Memory is bounded by the longest line; use
 * readBoundedLines to cap that too.
 */
export async function* readLines(vfs: Vfs, file: string): AsyncGenerator<LineEvent> {
  for await (const e of readBoundedLines(vfs, file, Number.POSITIVE_INFINITY)) {
    if (e.kind === 'line') yield { kind: 'line', line: e.line, text: e.text, offset: e.offset, terminated: e.terminated };
    else if (e.kind === 'invalid-utf8') yield e;
  }
}

/**
 * Line streaming with a cap on line length. Without a cap one 500 MB line (a JSON array
 * saved as `.jsonl`, or garbage) would need 500 MB; here a line over the cap is dropped as
 * it streams and reported instead.
 */
export type BoundedLineEvent =
  /** `bytes` are exactly the UTF-8 of `text`, a view that is only valid until the next event is requested. */
  | { kind: 'line'; line: number; text: string; bytes: Uint8Array; offset: number; terminated: boolean }
  | { kind: 'invalid-utf8'; line: number; offset: number }
  | { kind: 'too-long'; line: number; offset: number; bytes: number };

export async function* readBoundedLines(vfs: Vfs, file: string, maxLineBytes: number): AsyncGenerator<BoundedLineEvent> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Uint8Array[] = [];
  let length = 0;
  let oversized = false;
  let lineNo = 0;
  let lineStart = 0;
  let offset = 0;

  function take(terminated: boolean): BoundedLineEvent {
    lineNo++;
    const start = lineStart;
    const bytes = length;
    lineStart = offset;
    if (oversized) {
      oversized = false;
      parts = [];
      length = 0;
      return { kind: 'too-long', line: lineNo, offset: start, bytes };
    }
    const joined = parts.length === 1 ? parts[0]! : concatBytes(parts, length);
    parts = [];
    length = 0;
    let end = joined.length;
    if (end > 0 && joined[end - 1] === 0x0d) end--;
    try {
      let text = decoder.decode(joined.subarray(0, end));
      // The decoder drops a leading BOM on every call; the first line may lose a second one.
      let from = end >= 3 && joined[0] === 0xef && joined[1] === 0xbb && joined[2] === 0xbf ? 3 : 0;
      if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) {
        text = text.slice(1);
        from += 3;
      }
      return { kind: 'line', line: lineNo, text, bytes: joined.subarray(from, end), offset: start, terminated };
    } catch {
      // The offset of the bad byte itself, not of its line: a reader can point at it.
      return { kind: 'invalid-utf8', line: lineNo, offset: start + Math.max(0, firstInvalidUtf8(joined.subarray(0, end))) };
    }
  }

  function append(piece: Uint8Array) {
    length += piece.length;
    if (oversized) return;
    if (length > maxLineBytes) {
      oversized = true;
      parts = [];
      return;
    }
    // Copy: the stream may reuse its buffer.
    parts.push(piece.slice());
  }

  for await (const chunk of vfs.readChunks(file)) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a, from); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      // A line wholly inside this chunk is decoded in place by take() below, before the next
      // chunk arrives, so it needs no copy; only lines spanning chunks are gathered.
      if (parts.length === 0 && !oversized && nl - from <= maxLineBytes) {
        parts.push(chunk.subarray(from, nl));
        length = nl - from;
      } else append(chunk.subarray(from, nl));
      offset += nl - from + 1;
      yield take(true);
      from = nl + 1;
    }
    if (from < chunk.length) {
      append(chunk.subarray(from));
      offset += chunk.length - from;
    }
  }
  if (length > 0 || oversized) yield take(false);
}

function concatBytes(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One JSON value per line, sorted keys not required. Lines end with '\n'. */
export function toJsonl(records: Iterable<unknown>): string {
  let out = '';
  for (const r of records) out += `${JSON.stringify(r)}\n`;
  return out;
}

export type JsonlEvent =
  | { kind: 'value'; line: number; value: unknown; terminated: boolean }
  | { kind: 'invalid-utf8'; line: number }
  | { kind: 'invalid-json'; line: number; message: string };

/**
 * One parsed JSON value per non-blank line. Bad lines come back as events rather than
 * exceptions, so each reader can report them with its own finding codes and carry on.
 */
export async function* readJsonlValues(vfs: Vfs, file: string): AsyncGenerator<JsonlEvent> {
  for await (const ev of readLines(vfs, file)) {
    if (ev.kind === 'invalid-utf8') {
      yield { kind: 'invalid-utf8', line: ev.line };
      continue;
    }
    if (ev.text.trim() === '') continue;
    let value: unknown;
    try {
      value = parseJson(ev.text);
    } catch (err) {
      yield { kind: 'invalid-json', line: ev.line, message: (err as Error).message };
      continue;
    }
    yield { kind: 'value', line: ev.line, value, terminated: ev.terminated };
  }
}
