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
  const sink = new FindingSink();
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
  let text: string;
  try {
    const bytes = await vfs.readBytes(file);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    ctx.sink.add('input-unreadable', { file }, { reason: (err as Error).message });
    return undefined;
  }
  const { rows, error } = parseCsv(text, delimiterFor(file));
  if (error) ctx.sink.add('table-parse-error', { file, line: error.line }, { reason: error.reason });
  const [header, ...body] = rows;
  if (!header) {
    if (!error) ctx.sink.add('input-unrecognised', { file }, { input: file, reason: 'empty table' });
    return undefined;
  }
  const format = ctx.options.format ?? sniffOrder.find((f) => tableFormats[f].detect(header.fields));
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
