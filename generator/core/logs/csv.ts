import { parse } from 'csv-parse/sync';

export interface CsvRow {
  /** 1-based line where the record ends (the line for single-line records). */
  line: number;
  fields: string[];
}

export interface CsvParse {
  rows: CsvRow[];
  /** Set when the CSV is syntactically broken; `rows` holds what came before. */
  error?: { line: number; reason: string };
}

/** Delimiter by extension; `.tsv`/`.tab` are tab-separated, otherwise comma. */
export function delimiterFor(file: string): string {
  return /\.(tsv|tab)$/i.test(file) ? '\t' : ',';
}

/**
 * Parses CSV/TSV text into raw rows with line numbers, tolerating CRLF or LF (PACE's
 * files are CRLF), a BOM, and blank lines. Column-count checks are the caller's job so
 * that a bad row is reported and skipped, not fatal.
 */
export function parseCsv(text: string, delimiter: string): CsvParse {
  try {
    const records = parse(text, {
      delimiter,
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      bom: true,
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
    return { rows: records.map((r) => ({ line: r.info.lines, fields: r.record })) };
  } catch (err) {
    const e = err as Error & { lines?: number };
    // Re-parse up to the broken line so the rows before it still count.
    const line = typeof e.lines === 'number' ? e.lines : 1;
    const before = text.split(/\r?\n/).slice(0, Math.max(0, line - 1)).join('\n');
    const partial = line > 1 && before.length < text.length ? parseCsv(before, delimiter) : { rows: [] };
    return { rows: partial.rows, error: { line, reason: e.message.split('\n')[0] ?? 'invalid CSV' } };
  }
}

/** Strict number parsing: rejects '', 'NaN', 'inf', '1,5', hex; accepts ordinary decimal/exponent forms. */
export function parseScore(raw: string): number | undefined {
  const s = raw.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** Cells that conventionally mean "not evaluated" in wide tables. */
export function isMissingCell(raw: string): boolean {
  const s = raw.trim();
  return s === '' || s === '-' || /^(na|n\/a|null|none)$/i.test(s);
}
