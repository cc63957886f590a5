/**
 * The containers trajectories come in: a JSON document read whole (bounded), JSONL streamed
 * line by line (bounded per line), JSONL saved under a .json name, and read-ahead for folders of
 * many small files. Every container problem (unreadable, too large, invalid UTF-8, truncated or
 * malformed JSON) is a rejection with file and line; each parsed value goes to the sink.
 */
import { parseJson } from '../kernel/json.js';
import { firstInvalidUtf8 } from '../kernel/utf8.js';
import type { Finding } from '../kernel/findings.js';
import type { FileStat, Vfs } from '../kernel/vfs.js';
import { readBoundedLines } from '../kernel/jsonl.js';
import { describeFsError, isFsError } from '../kernel/walk.js';
import { trajFinding } from './findings.js';
import type { Trajectory } from './types.js';

export interface FileSummary { file: string; format: string | null; trajectories: number; steps: number; success: Record<string, number>; tokens: number; rejected: number }

export type TrajectoryEvent =
  | { kind: 'trajectory'; trajectory: Trajectory }
  | { kind: 'finding'; finding: Finding }
  | { kind: 'file'; summary: FileSummary };



/** Where a container's values and rejections go (read.ts's per-file reader). */
export interface RecordSink {
  readonly file: string;
  reject(f: Finding): TrajectoryEvent[];
  handle(value: unknown, container: 'document' | 'record', where: { line?: number; record?: number }, raw: string | Uint8Array | (() => string)): TrajectoryEvent[];
}

export const JSONL_EXTENSIONS = /\.(jsonl|ndjson)$/i;
/** How far into an oversized non-.jsonl file we look for a first JSONL line. */
const PEEK_BYTES = 16 * 1024 * 1024;

function lineOfOffset(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** Maps JSON.parse's error position (if the engine reports one) to line and column. */
function parseErrorWhere(err: Error, text: string): { line?: number; column?: number; atEnd: boolean } {
  const message = err.message;
  const atEnd = /end of (JSON|data)|Unterminated string|Unexpected end/i.test(message);
  const pos = /position (\d+)/.exec(message);
  if (!pos) {
    const lc = /line (\d+) column (\d+)/.exec(message);
    return lc ? { line: Number(lc[1]), column: Number(lc[2]), atEnd } : { atEnd };
  }
  const offset = Number(pos[1]);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1, atEnd: atEnd || offset >= text.trimEnd().length };
}

function shortDetail(err: Error): string {
  return err.message.replace(/, "[\s\S]*" is not valid JSON$/, '').slice(0, 200);
}

async function* readJsonlStream(vfs: Vfs, reader: RecordSink, maxLineBytes: number): AsyncGenerator<TrajectoryEvent> {
  try {
    yield* readJsonlLines(vfs, reader, maxLineBytes);
  } catch (err) {
    // A read that fails (permissions, an I/O error half way) costs this file, not the run.
    if (!isFsError(err)) throw err;
    yield* reader.reject(trajFinding('traj-file-unreadable', { file: reader.file }, { reason: describeFsError(err) }));
  }
}

async function* readJsonlLines(vfs: Vfs, reader: RecordSink, maxLineBytes: number): AsyncGenerator<TrajectoryEvent> {
  let any = false;
  for await (const ev of readBoundedLines(vfs, reader.file, maxLineBytes)) {
    if (ev.kind === 'invalid-utf8') {
      any = true;
      yield* reader.reject(trajFinding('traj-invalid-utf8', { file: reader.file, line: ev.line }, { offset: ev.offset, scope: 'line' }));
      continue;
    }
    if (ev.kind === 'too-long') {
      any = true;
      yield* reader.reject(trajFinding('traj-line-too-long', { file: reader.file, line: ev.line }, { bytes: ev.bytes, limit: maxLineBytes }));
      continue;
    }
    if (!ev.text.trim()) continue;
    any = true;
    let value: unknown;
    try {
      value = parseJson(ev.text);
    } catch (err) {
      const where = parseErrorWhere(err as Error, ev.text);
      if (!ev.terminated && where.atEnd) {
        yield* reader.reject(trajFinding('traj-truncated', { file: reader.file, line: ev.line }, { unterminated: true, detail: shortDetail(err as Error) }));
      } else {
        yield* reader.reject(trajFinding('traj-malformed-json', { file: reader.file, line: ev.line }, { column: where.column, detail: shortDetail(err as Error) }));
      }
      continue;
    }
    yield* reader.handle(value, 'record', { line: ev.line }, ev.bytes);
  }
  if (!any) yield* reader.reject(trajFinding('traj-empty-file', { file: reader.file }));
}

async function* readJsonLinesFromText(text: string, reader: RecordSink): AsyncGenerator<TrajectoryEvent> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (!line.trim()) continue;
    try {
      yield* reader.handle(parseJson(line) as unknown, 'record', { line: i + 1 }, line);
    } catch (err) {
      const where = parseErrorWhere(err as Error, line);
      const last = i === lines.length - 1;
      if (last && where.atEnd) yield* reader.reject(trajFinding('traj-truncated', { file: reader.file, line: i + 1 }, { unterminated: true, detail: shortDetail(err as Error) }));
      else yield* reader.reject(trajFinding('traj-malformed-json', { file: reader.file, line: i + 1 }, { column: where.column, detail: shortDetail(err as Error) }));
    }
  }
}

/** Peeks at the start of a big file: JSONL if its first line is a complete JSON value. */
async function looksLikeJsonl(vfs: Vfs, file: string, peekBytes: number): Promise<boolean> {
  const parts: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of vfs.readChunks(file)) {
    const nl = chunk.indexOf(0x0a);
    parts.push(chunk.slice(0, nl === -1 ? chunk.length : nl));
    length += nl === -1 ? chunk.length : nl;
    if (nl !== -1) {
      const bytes = new Uint8Array(length);
      let at = 0;
      for (const p of parts) {
        bytes.set(p, at);
        at += p.length;
      }
      try {
        JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        return true;
      } catch {
        return false;
      }
    }
    // Leaving the loop closes the stream: a huge file without newlines is not read to the end.
    if (length > peekBytes) return false;
  }
  return false;
}

export async function* readFile(vfs: Vfs, reader: RecordSink, maxBytes: number): AsyncGenerator<TrajectoryEvent> {
  const file = reader.file;
  let size: number;
  try {
    size = (await vfs.stat(file))?.size ?? 0;
  } catch (err) {
    yield* reader.reject(trajFinding('traj-file-unreadable', { file }, { reason: (err as Error).message }));
    return;
  }
  let jsonl: boolean;
  try {
    jsonl = JSONL_EXTENSIONS.test(file) || (size > maxBytes && (await looksLikeJsonl(vfs, file, Math.min(maxBytes, PEEK_BYTES))));
  } catch (err) {
    if (!isFsError(err)) throw err;
    yield* reader.reject(trajFinding('traj-file-unreadable', { file }, { reason: describeFsError(err) }));
    return;
  }
  if (jsonl) {
    yield* readJsonlStream(vfs, reader, maxBytes);
    return;
  }
  if (size > maxBytes) {
    yield* reader.reject(trajFinding('traj-file-too-large', { file }, { bytes: size, limit: maxBytes }));
    return;
  }
  let bytes: Uint8Array;
  try {
    bytes = await vfs.readBytes(file);
  } catch (err) {
    yield* reader.reject(trajFinding('traj-file-unreadable', { file }, { reason: (err as Error).message }));
    return;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    yield* reader.reject(trajFinding('traj-invalid-utf8', { file, line: lineOfOffset(bytes, Math.max(offset, 0)) }, { offset, scope: 'file' }));
    return;
  }
  // The decoder drops one leading BOM and we drop a second: `source` stays the UTF-8 of `text`.
  let source = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  if (text.charCodeAt(0) === 0xfeff) {
    text = text.slice(1);
    source = source.subarray(3);
  }
  if (!text.trim()) {
    yield* reader.reject(trajFinding('traj-empty-file', { file }));
    return;
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (err) {
    // JSONL saved under a .json / .traj name: several complete lines.
    const nonEmpty = text.split('\n').filter((l) => l.trim());
    if (nonEmpty.length > 1) {
      try {
        JSON.parse(nonEmpty[0]!);
        yield* readJsonLinesFromText(text, reader);
        return;
      } catch {
        // not JSONL either; report the document error below
      }
    }
    const where = parseErrorWhere(err as Error, text);
    if (where.atEnd) yield* reader.reject(trajFinding('traj-truncated', { file, line: where.line }, { unterminated: false, detail: shortDetail(err as Error) }));
    else yield* reader.reject(trajFinding('traj-malformed-json', { file, line: where.line }, { column: where.column, detail: shortDetail(err as Error) }));
    return;
  }
  yield* reader.handle(value, 'document', {}, source);
}

/**
 * With many small files (a folder of SWE-agent `.traj` runs) waiting for each stat and read in
 * turn is a large share of the time. `warm(file)` starts the stat, and the read of a document
 * small enough to be loaded whole, for the file after the current one; `vfs` serves them from
 * there once (later calls go to the real Vfs). At most one file is held ahead.
 */
export function readAhead(vfs: Vfs, maxBytes: number): { vfs: Vfs; warm: (file: string) => void } {
  const stats = new Map<string, Promise<FileStat | undefined>>();
  const bytes = new Map<string, Promise<Uint8Array>>();
  const served: Vfs = Object.create(vfs) as Vfs;
  served.stat = (file) => take(stats, file) ?? vfs.stat(file);
  served.readBytes = (file) => take(bytes, file) ?? vfs.readBytes(file);
  return {
    vfs: served,
    warm(file) {
      const stat = vfs.stat(file);
      stats.set(file, stat);
      stat.then(
        (s) => {
          // JSONL is streamed, and oversized documents are refused unread: neither is loaded
          // here. Any other file readFile goes on to read, so nothing is left in the map.
          if (!s?.isFile || s.size > maxBytes || JSONL_EXTENSIONS.test(file)) return;
          const read = vfs.readBytes(file);
          read.catch(() => undefined); // reported when (if) readFile asks for it
          bytes.set(file, read);
        },
        () => undefined,
      );
    },
  };
}

function take<T>(cache: Map<string, Promise<T>>, file: string): Promise<T> | undefined {
  const hit = cache.get(file);
  cache.delete(file);
  return hit;
}
