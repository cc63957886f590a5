/**
 * The checkpoint history `aptpace check --history FILE.jsonl` keeps: one JSON line per checkpoint,
 * keyed by checkpoint name. Re-checking a name replaces its line in place; a new name is appended.
 * The whole file is rewritten atomically, so a killed run leaves the previous version intact.
 */
import { findingFactory, type Finding } from '../kernel/findings.js';
import { readJsonlValues } from '../kernel/jsonl.js';
import { stableStringify } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { checkFindings } from './check-findings.js';
import type { CheckResult, TargetStatus } from './check-result.js';

export const HISTORY_FORMAT = 'aptpace-check-history';
export const HISTORY_VERSION = 1;

const make = findingFactory(checkFindings);

export interface HistoryTarget {
  target: string;
  predicted: number | null;
  interval: [number, number] | null;
  minScore: number | null;
  missingInstances: number;
  proxyInstances: number;
  status: TargetStatus;
}

export interface HistoryEntry {
  format: typeof HISTORY_FORMAT;
  version: typeof HISTORY_VERSION;
  model: string;
  step: number | null;
  modelFileSha256: string;
  passed: boolean;
  targets: HistoryTarget[];
}

export interface HistoryRead {
  entries: HistoryEntry[];
  findings: Finding[];
  /** False when a bad line means the file must not be rewritten. */
  writable: boolean;
}

export function historyEntry(result: CheckResult): HistoryEntry {
  return {
    format: HISTORY_FORMAT,
    version: HISTORY_VERSION,
    model: result.model,
    step: result.step,
    modelFileSha256: result.modelFile.sha256,
    passed: result.passed,
    targets: result.targets.map((t) => ({
      target: t.target,
      predicted: t.predicted,
      interval: t.interval,
      minScore: t.minScore,
      missingInstances: t.missingInstances,
      proxyInstances: t.proxyInstances,
      status: t.status,
    })),
  };
}

const isNumberOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));

/** Why a parsed line is not a history entry, or null when it is one. */
function problemWith(raw: unknown): string | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return 'not a JSON object';
  const e = raw as Partial<HistoryEntry>;
  if (e.format !== HISTORY_FORMAT) return `format is ${JSON.stringify(e.format)}, expected ${HISTORY_FORMAT}`;
  if (e.version !== HISTORY_VERSION) return `version ${JSON.stringify(e.version)} is not supported`;
  if (typeof e.model !== 'string' || !e.model) return 'model is missing';
  if (!isNumberOrNull(e.step ?? null)) return 'step is not a number';
  if (typeof e.modelFileSha256 !== 'string') return 'modelFileSha256 is missing';
  if (e.targets === undefined) return 'targets is missing';
  if (!Array.isArray(e.targets)) return `targets must be a list, got ${e.targets === null ? 'null' : typeof e.targets}`;
  for (const [i, t] of e.targets.entries()) {
    if (!t || typeof t.target !== 'string' || !isNumberOrNull(t.predicted)) return `targets[${i}] is malformed`;
    if (t.interval !== null && !(Array.isArray(t.interval) && t.interval.length === 2 && t.interval.every((v) => typeof v === 'number'))) return `targets[${i}].interval is malformed`;
  }
  return null;
}

/**
 * Reads the history; a missing file is an empty history. Lines that are not entries are errors
 * that keep the file untouched, or (with `force`) warnings and the lines are dropped.
 */
export async function readHistory(vfs: Vfs, file: string, options: { force?: boolean } = {}): Promise<HistoryRead> {
  const findings: Finding[] = [];
  if (!(await vfs.stat(file))) return { entries: [], findings, writable: true };
  const byModel = new Map<string, number>();
  const entries: HistoryEntry[] = [];
  let writable = true;
  const reject = (line: number, reason: string) => {
    if (options.force) findings.push(make('check-history-line-dropped', { file, line }, { reason }));
    else {
      findings.push(make('check-history-bad-line', { file, line }, { reason }));
      writable = false;
    }
  };
  for await (const ev of readJsonlValues(vfs, file)) {
    if (ev.kind === 'invalid-utf8' || ev.kind === 'invalid-json') {
      reject(ev.line, ev.kind === 'invalid-utf8' ? 'invalid UTF-8' : `not JSON: ${ev.message}`);
      continue;
    }
    const raw = ev.value;
    const problem = problemWith(raw);
    if (problem) {
      reject(ev.line, problem);
      continue;
    }
    const entry = { ...(raw as HistoryEntry), step: (raw as HistoryEntry).step ?? null };
    const at = byModel.get(entry.model);
    if (at !== undefined) {
      findings.push(make('check-history-duplicate-model', { file, line: ev.line }, { model: entry.model }));
      entries[at] = entry;
    } else {
      byModel.set(entry.model, entries.length);
      entries.push(entry);
    }
  }
  return { entries, findings, writable };
}

/** Replaces the entry of the same checkpoint in place, or appends it. */
export function upsertHistory(entries: HistoryEntry[], entry: HistoryEntry): HistoryEntry[] {
  const at = entries.findIndex((e) => e.model === entry.model);
  if (at < 0) return [...entries, entry];
  return entries.map((e, i) => (i === at ? entry : e));
}

export function serializeHistory(entries: HistoryEntry[]): string {
  return entries.map((e) => `${stableStringify(e)}\n`).join('');
}

/** Earlier entries predicted with a different model file than the current one. */
export function otherModelFileFinding(entries: HistoryEntry[], current: { model: string; sha256: string }, file: string): Finding | null {
  const others = entries.filter((e) => e.model !== current.model && e.modelFileSha256 !== current.sha256).map((e) => e.model);
  if (!others.length) return null;
  const shown = others.slice(0, 5).join(', ') + (others.length > 5 ? `, … ${others.length - 5} more` : '');
  return make('check-history-other-model-file', { file }, { count: others.length, models: shown });
}

/**
 * The order of the trend plot: by step when every entry has one, else the history's own
 * (append) order; x is the step or the 1-based position.
 */
export function trendPositions(entries: HistoryEntry[]): { axis: 'step' | 'order'; points: Array<{ x: number; entry: HistoryEntry }> } {
  if (entries.length && entries.every((e) => e.step !== null)) {
    const points = entries.map((entry) => ({ x: entry.step as number, entry }));
    points.sort((a, b) => a.x - b.x || (a.entry.model < b.entry.model ? -1 : a.entry.model > b.entry.model ? 1 : 0));
    return { axis: 'step', points };
  }
  return { axis: 'order', points: entries.map((entry, i) => ({ x: i + 1, entry })) };
}
