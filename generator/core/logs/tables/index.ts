import { Buffer, isUtf8 } from 'node:buffer';
import * as path from 'node:path';
import { emptyTally, type Finding, type Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { MatrixBuilder } from '../builder.js';
import { delimiterFor, parseCsv } from '../csv.js';
import type { ScoreMatrix } from '../matrix.js';
import { FindingSink } from '../sink.js';
import { walkFiles } from '../walk.js';
import { paceCsvFormat } from './pace-csv.js';
import type { ScoreTableOptions, TableContext, TableFormat, TableFormatSpec } from './types.js';
import { wideFormat } from './wide.js';

export type { ScoreTableOptions, TableFormat } from './types.js';

/** Sniffed in this order; `--table-format` forces one. */
export const tableFormats = {
  'pace-csv': paceCsvFormat,
  wide: wideFormat,
} satisfies Record<TableFormat, TableFormatSpec>;
const sniffOrder: TableFormat[] = ['pace-csv', 'wide'];

const TABLE_FILE = /\.(csv|tsv|tab)$/i;

/**
 * Reads external per-instance score tables into one matrix. Each input is a file or a
 * folder; for folders every CSV/TSV below is read and its task is its folder path
 * relative to the input (`gpqa/diamond`), its model the file stem (after `mapping`).
 * A file given directly takes its parent folder's name as task.
 */
export async function readScoreTables(
  vfs: Vfs,
  inputs: string[],
  options: ScoreTableOptions = {},
): Promise<{ matrix: ScoreMatrix; findings: Finding[]; tally: Tally }> {
  const sink = new FindingSink({ onFinding: options.onFinding });
  const builder = new MatrixBuilder(sink);
  const tally = emptyTally();
  const usedAliases = new Set<string>();
  const ctx: TableContext = {
    builder,
    sink,
    tally,
    options,
    coverage: new Map(),
    modelName: (raw) => {
      const mapped = options.mapping?.[raw];
      if (mapped === undefined) return raw;
      usedAliases.add(raw);
      return mapped;
    },
  };
  const files: Array<{ file: string; task: string; format: TableFormat }> = [];

  for (const input of inputs) {
    const st = await vfs.stat(input);
    if (!st) {
      sink.add('input-missing', { file: input }, { input });
      continue;
    }
    const found = st.isDirectory
      ? (await walkFiles(vfs, input, (f) => TABLE_FILE.test(f), sink)).map((file) => ({ file, task: taskFromPath(input, file) }))
      : [{ file: input, task: path.basename(path.dirname(path.resolve(input))) }];
    if (found.length === 0) sink.add('input-unrecognised', { file: input }, { input, reason: 'no .csv/.tsv files below it' });
    for (const { file, task } of found) {
      if (!task) {
        sink.add('table-layout', { file }, { reason: 'the file sits directly in the input folder' });
        continue;
      }
      const format = await readOneTable(vfs, file, task, ctx);
      if (format) files.push({ file, task, format });
    }
  }

  reportSparseFiles(ctx);
  const { matrix, conflicts } = builder.build({
    kind: 'score-tables',
    inputs: [...inputs],
    files: files.map((f) => ({ file: f.file, task: f.task, format: f.format })),
    duplicatePolicy: options.duplicates ?? 'error',
    ...(options.mapping ? { mapping: options.mapping } : {}),
  });
  tally.rejected += conflicts;
  tally.accepted -= conflicts;
  if (options.mapping) {
    const unused = Object.keys(options.mapping).filter((a) => !usedAliases.has(a));
    // Unused aliases are normal when one mapping file serves several sources; only say so.
    if (unused.length) sink.add('mapping-unused', {}, { count: unused.length, aliases: unused.slice(0, 10).join(', '), unused });
  }
  return { matrix, findings: sink.close(), tally };
}

async function readOneTable(vfs: Vfs, file: string, task: string, ctx: TableContext): Promise<TableFormat | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await vfs.readBytes(file);
  } catch (err) {
    ctx.sink.add('input-unreadable', { file }, { reason: (err as Error).message });
    return undefined;
  }
  const { text, badLines } = decodeByLine(bytes);
  const { rows, errors, unreadLines } = parseCsv(text, delimiterFor(file));
  for (const line of badLines) ctx.sink.add('table-invalid-utf8', { file, line });
  for (const e of errors) ctx.sink.add('table-parse-error', { file, line: e.line }, { reason: e.reason });
  if (unreadLines) ctx.sink.add('table-unread-lines', { file }, { lines: unreadLines, errors: errors.length });
  const [header, ...body] = rows;
  // Every rejected line is one row read and rejected (a wide row: one per instance column).
  const lost = badLines.length + errors.length + unreadLines;
  if (!header) {
    if (!lost) ctx.sink.add('input-unrecognised', { file }, { input: file, reason: 'empty table' });
    ctx.tally.read += lost;
    ctx.tally.rejected += lost;
    return undefined;
  }
  const format = ctx.options.format ?? sniffOrder.find((f) => tableFormats[f].detect(header.fields));
  const perRow = format === 'wide' ? Math.max(1, header.fields.length - 1) : 1;
  ctx.tally.read += lost * perRow;
  ctx.tally.rejected += lost * perRow;
  if (!format) {
    ctx.sink.add('input-unrecognised', { file, line: header.line }, { input: file, reason: `header ${JSON.stringify(header.fields)} matches no table format` });
    ctx.tally.read += body.length;
    ctx.tally.rejected += body.length;
    return undefined;
  }
  const stem = path.basename(file).replace(TABLE_FILE, '');
  tableFormats[format].read({ file, task, stem, header, rows: body }, ctx);
  return format;
}

/**
 * UTF-8 text of a table, line by line: a line that is not valid UTF-8 is blanked (so line
 * numbers hold) and reported, instead of losing the whole file to one bad byte.
 */
function decodeByLine(bytes: Uint8Array): { text: string; badLines: number[] } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buf)) return { text: buf.toString('utf8'), badLines: [] };
  const parts: string[] = [];
  const badLines: number[] = [];
  let start = 0;
  for (let line = 1; start <= buf.length; line++) {
    let nl = buf.indexOf(0x0a, start);
    if (nl < 0) nl = buf.length;
    const seg = buf.subarray(start, nl);
    if (isUtf8(seg)) parts.push(seg.toString('utf8'));
    else {
      parts.push('');
      badLines.push(line);
    }
    start = nl + 1;
  }
  return { text: parts.join('\n'), badLines };
}

function taskFromPath(root: string, file: string): string {
  const rel = path.relative(root, path.dirname(file));
  return rel.split(path.sep).filter(Boolean).join('/');
}

function reportSparseFiles(ctx: TableContext): void {
  for (const task of [...ctx.coverage.keys()].sort()) {
    const cov = ctx.coverage.get(task)!;
    for (const model of [...cov.perModel.keys()].sort()) {
      const { count, file } = cov.perModel.get(model)!;
      if (count < cov.ids.size) ctx.sink.add('table-sparse-file', { file }, { model, present: count, total: cov.ids.size, task });
    }
  }
}
