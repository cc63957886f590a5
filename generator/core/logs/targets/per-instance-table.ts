/**
 * Per-instance target tables: one row per (model, instance) outcome, as JSONL
 * (`{"model", "instance" | "instance_id", "resolved" | "outcome" | "score", "target"?}`) or as
 * CSV/TSV with `model`, `instance`/`instance_id` and an outcome column (and optionally `target`).
 * Outcomes are 0/1 or booleans; null / empty is unobserved (never a failure). Without a target
 * field the file name names the target (`swe-bench.jsonl`).
 */
import { delimiterFor, isMissingCell, parseCsv } from '../csv.js';

export interface OutcomeRow {
  model: string;
  target: string;
  instance: string;
  /** 0 or 1; null = unobserved. */
  value: 0 | 1 | null;
}

export interface RowProblem {
  line: number;
  field?: string;
  value: unknown;
  reason: string;
}

const OUTCOME_FIELDS = ['resolved', 'outcome', 'score', 'correct'];
const INSTANCE_FIELDS = ['instance', 'instance_id'];

/** 0/1, true/false (also as strings), or null/empty for unobserved; anything else is undefined. */
export function outcomeOf(raw: unknown): 0 | 1 | null | undefined {
  if (raw === null || raw === undefined) return null;
  if (raw === true || raw === 1) return 1;
  if (raw === false || raw === 0) return 0;
  if (typeof raw === 'string') {
    const s = raw.trim().toLowerCase();
    if (s === '' || s === 'null' || s === 'na' || s === 'nan') return null;
    if (s === '1' || s === 'true' || s === '1.0') return 1;
    if (s === '0' || s === 'false' || s === '0.0') return 0;
  }
  return undefined;
}

/** Whether a CSV header is a per-instance table (it has an instance column), not an aggregate one. */
export function isPerInstanceHeader(fields: string[]): boolean {
  const lower = fields.map((f) => f.trim().toLowerCase());
  return lower.includes('model') && INSTANCE_FIELDS.some((f) => lower.includes(f)) && OUTCOME_FIELDS.some((f) => lower.includes(f));
}

export function parseOutcomeJsonl(text: string, defaultTarget: string): { rows: OutcomeRow[]; problems: RowProblem[] } {
  const rows: OutcomeRow[] = [];
  const problems: RowProblem[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      problems.push({ line: i + 1, value: line.slice(0, 80), reason: `invalid JSON: ${(e as Error).message}` });
      return;
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) {
      problems.push({ line: i + 1, value: line.slice(0, 80), reason: 'not an object' });
      return;
    }
    const o = obj as Record<string, unknown>;
    const instanceField = INSTANCE_FIELDS.find((f) => f in o);
    const outcomeField = OUTCOME_FIELDS.find((f) => f in o);
    if (typeof o.model !== 'string' || !instanceField || !outcomeField) {
      problems.push({ line: i + 1, value: line.slice(0, 80), reason: `needs "model", one of ${INSTANCE_FIELDS.join('/')} and one of ${OUTCOME_FIELDS.join('/')}` });
      return;
    }
    const value = outcomeOf(o[outcomeField]);
    if (value === undefined) {
      problems.push({ line: i + 1, field: outcomeField, value: o[outcomeField], reason: 'expected 0/1, true/false or null' });
      return;
    }
    rows.push({ model: o.model, target: typeof o.target === 'string' ? o.target : defaultTarget, instance: String(o[instanceField]), value });
  });
  return { rows, problems };
}

export function parseOutcomeCsv(text: string, file: string, defaultTarget: string): { rows: OutcomeRow[]; problems: RowProblem[] } {
  const rows: OutcomeRow[] = [];
  const problems: RowProblem[] = [];
  const parsed = parseCsv(text, delimiterFor(file));
  if (parsed.error) problems.push({ line: parsed.error.line, value: '', reason: parsed.error.reason });
  const [header, ...body] = parsed.rows;
  if (!header) return { rows, problems };
  const lower = header.fields.map((f) => f.trim().toLowerCase());
  const col = (names: string[]) => lower.findIndex((f) => names.includes(f));
  const m = col(['model']);
  const inst = col(INSTANCE_FIELDS);
  const out = col(OUTCOME_FIELDS);
  const tgt = col(['target']);
  for (const row of body) {
    if (row.fields.length !== header.fields.length) {
      problems.push({ line: row.line, value: row.fields.join(','), reason: `expected ${header.fields.length} fields, found ${row.fields.length}` });
      continue;
    }
    const raw = row.fields[out]!;
    const value = isMissingCell(raw) ? null : outcomeOf(raw);
    if (value === undefined) {
      problems.push({ line: row.line, field: header.fields[out]!.trim(), value: raw, reason: 'expected 0/1, true/false or empty' });
      continue;
    }
    rows.push({ model: row.fields[m]!.trim(), target: tgt >= 0 ? row.fields[tgt]!.trim() : defaultTarget, instance: row.fields[inst]!.trim(), value });
  }
  return { rows, problems };
}
