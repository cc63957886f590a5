import { parse } from 'csv-parse/sync';
import { appendAll } from '../kernel/arrays.js';

export interface CsvRow {
  /** 1-based line where the record ends (the line for single-line records). */
  line: number;
  fields: string[];
}

export interface CsvParse {
  rows: CsvRow[];
  /** The first syntax error, when any (kept for callers that report one). */
  error?: { line: number; reason: string };
  /** Every syntax error: each rejected the one line where the broken record starts; parsing resumed after it. */
  errors: Array<{ line: number; reason: string }>;
  /** Lines never parsed because the error cap was reached (counted, not silently dropped). */
  unreadLines: number;
}

/** Delimiter by extension; `.tsv`/`.tab` are tab-separated, otherwise comma. */
export function delimiterFor(file: string): string {
  return /\.(tsv|tab)$/i.test(file) ? '\t' : ',';
}

/** After this many broken records the rest of the file is counted as unread (re-parsing is quadratic). */
const MAX_CSV_ERRORS = 200;

/**
 * Parses CSV/TSV text into raw rows with line numbers, tolerating CRLF or LF (PACE's
 * files are CRLF), a BOM, and blank lines. Column-count checks are the caller's job so
 * that a bad row is reported and skipped, not fatal. A syntax error (an unterminated
 * quote, a stray quote) rejects the line where the broken record starts; parsing resumes
 * on the next line, so one bad quote never takes the rest of the file with it.
 */
export function parseCsv(text: string, delimiter: string): CsvParse {
  const lines = text.split(/\r\n|\n|\r/);
  const rows: CsvRow[] = [];
  const errors: CsvParse['errors'] = [];
  let start = 0;
  while (start < lines.length) {
    const got: CsvRow[] = [];
    try {
      parse(lines.slice(start).join('\n'), {
        delimiter,
        info: true,
        relax_column_count: true,
        skip_empty_lines: true,
        bom: start === 0,
        record_delimiter: ['\n'],
        on_record: (r: { record: string[]; info: { lines: number } }) => {
          got.push({ line: r.info.lines + start, fields: r.record });
          return null;
        },
      } as never);
      appendAll(rows, got);
      break;
    } catch (err) {
      appendAll(rows, got);
      // The broken record starts on the first non-blank line after the last good one.
      let bad = got.length ? got[got.length - 1]!.line : start;
      while (bad < lines.length && lines[bad]!.trim() === '') bad++;
      if (bad >= lines.length) break;
      // csv-parse's own line numbers count from where this attempt started: drop them.
      errors.push({ line: bad + 1, reason: ((err as Error).message.split('\n')[0] ?? 'invalid CSV').replace(/ at line \d+/g, '') });
      start = bad + 1;
      if (errors.length >= MAX_CSV_ERRORS) {
        const unreadLines = lines.slice(start).filter((l) => l.trim() !== '').length;
        return { rows, errors, error: errors[0], unreadLines };
      }
    }
  }
  return { rows, errors, ...(errors.length ? { error: errors[0] } : {}), unreadLines: 0 };
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
