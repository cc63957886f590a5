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
 * bad byte costs one line, not the whole file. Memory is bounded by the longest line.
 */
export async function* readLines(vfs: Vfs, file: string): AsyncGenerator<LineEvent> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending: Uint8Array[] = [];
  let pendingLength = 0;
  let lineNo = 0;
  let offset = 0;

  function* flush(terminated: boolean): Generator<LineEvent> {
    const bytes = concat(pending, pendingLength);
    pending = [];
    const start = offset;
    offset += pendingLength + (terminated ? 1 : 0);
    pendingLength = 0;
    lineNo++;
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end--;
    try {
      let text = decoder.decode(bytes.subarray(0, end));
      if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      yield { kind: 'line', line: lineNo, text, offset: start, terminated };
    } catch {
      yield { kind: 'invalid-utf8', line: lineNo, offset: start };
    }
  }

  for await (const chunk of vfs.readChunks(file)) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a, from); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      pending.push(chunk.subarray(from, nl));
      pendingLength += nl - from;
      yield* flush(true);
      from = nl + 1;
    }
    if (from < chunk.length) {
      // Copy: the stream may reuse its buffer.
      pending.push(chunk.slice(from));
      pendingLength += chunk.length - from;
    }
  }
  if (pendingLength > 0) yield* flush(false);
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
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
