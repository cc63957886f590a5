/**
 * Success from evidence only. Evaluation reports and label files are parsed into verdicts
 * keyed by instance id and joined onto trajectories. `submitted`, `task_completed` and other
 * self-reports never become `success: true` here.
 */
import type { Finding } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import { trajFinding } from './findings.js';
import { isRecord } from './text.js';
import type { SuccessSource, Trajectory } from './types.js';

export interface Verdict {
  resolved: boolean;
  source: SuccessSource;
  file: string;
}

export type EvaluationFile =
  | { kind: 'report'; verdicts: Array<[string, boolean, SuccessSource]> }
  | { kind: 'predictions'; entries: number };

const TRUE_LISTS = ['resolved', 'resolved_ids', 'resolved_instances'];
const FALSE_LISTS = ['unresolved', 'unresolved_ids', 'unresolved_instances', 'error_ids', 'empty_patch_ids', 'incomplete_ids', 'no_apply', 'no_generation'];
const ROW_LABELS: Array<[string, SuccessSource]> = [
  ['resolved', 'harness_report'],
  ['is_correct', 'answer_match'],
  ['label', 'dataset_label'],
  ['target', 'dataset_label'],
  ['success', 'dataset_label'],
];

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const hasPatch = (v: unknown) => isRecord(v) && ('model_patch' in v || 'patch' in v) && !ROW_LABELS.some(([k]) => typeof v[k] === 'boolean');

function rowVerdict(row: Record<string, unknown>): [string, boolean, SuccessSource] | null {
  const id = row.instance_id ?? row.id ?? row.task_id;
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  for (const [key, source] of ROW_LABELS) if (typeof row[key] === 'boolean') return [String(id), row[key] as boolean, source];
  return null;
}

/**
 * Recognises the report shapes in use: `{id: {resolved}}` (SWE-bench per-instance report,
 * OpenHands Index), `{id: true}`, SWE-bench run summaries `{resolved_ids, unresolved_ids, …}`,
 * AutoCodeRover `{resolved: [...], no_apply: [...]}`, a list of resolved ids, or rows
 * `{instance_id, resolved | label | is_correct}`. Prediction files (patches, no verdicts) are
 * told apart so they can be refused by name.
 */
export function classifyEvaluation(value: unknown): EvaluationFile | null {
  if (isStringList(value)) return value.length ? { kind: 'report', verdicts: value.map((id) => [id, true, 'harness_report']) } : null;
  if (Array.isArray(value)) {
    if (!value.length || !value.every(isRecord)) return null;
    const verdicts = value.map((r) => rowVerdict(r as Record<string, unknown>));
    if (verdicts.every((v) => v !== null)) return { kind: 'report', verdicts: verdicts as Array<[string, boolean, SuccessSource]> };
    if (value.every(hasPatch)) return { kind: 'predictions', entries: value.length };
    return null;
  }
  if (!isRecord(value)) return null;
  const keys = Object.keys(value);
  if (!keys.length) return null;
  if (TRUE_LISTS.some((k) => isStringList(value[k]))) {
    const verdicts: Array<[string, boolean, SuccessSource]> = [];
    for (const k of FALSE_LISTS) if (isStringList(value[k])) for (const id of value[k]) verdicts.push([id, false, 'harness_report']);
    for (const k of TRUE_LISTS) if (isStringList(value[k])) for (const id of value[k]) verdicts.push([id, true, 'harness_report']);
    return { kind: 'report', verdicts };
  }
  const entries = Object.entries(value);
  if (entries.every(([, v]) => typeof v === 'boolean')) return { kind: 'report', verdicts: entries.map(([id, v]) => [id, v as boolean, 'harness_report']) };
  if (entries.every(([, v]) => isRecord(v) && typeof v.resolved === 'boolean')) {
    return { kind: 'report', verdicts: entries.map(([id, v]) => [id, (v as Record<string, unknown>).resolved as boolean, 'harness_report']) };
  }
  if (entries.every(([, v]) => hasPatch(v))) return { kind: 'predictions', entries: entries.length };
  const row = rowVerdict(value);
  if (row) return { kind: 'report', verdicts: [row] };
  if (hasPatch(value) && 'instance_id' in value) return { kind: 'predictions', entries: 1 };
  return null;
}

export class EvidenceIndex {
  readonly verdicts = new Map<string, Verdict>();
  readonly findings: Finding[] = [];
  private readonly perFile = new Map<string, Set<string>>();
  private readonly matched = new Set<string>();

  add(file: string, id: string, resolved: boolean, source: SuccessSource): void {
    this.perFile.get(file)?.add(id) ?? this.perFile.set(file, new Set([id]));
    const previous = this.verdicts.get(id);
    if (previous && previous.resolved !== resolved && previous.file !== file) {
      this.findings.push(trajFinding('evidence-conflict', { file }, { instance: id, first: previous.resolved, firstFile: previous.file, second: resolved, secondFile: file }));
      // Disagreeing reports do not prove success: the conservative verdict stands.
      this.verdicts.set(id, { resolved: false, source, file: previous.resolved ? file : previous.file });
      return;
    }
    if (!previous || previous.file === file) this.verdicts.set(id, { resolved, source, file });
  }

  /** Joins the verdict for the trajectory's instance onto its outcome; returns warnings. */
  apply(t: Trajectory, where: { file: string; line?: number; record?: number }): Finding[] {
    const verdict = this.verdicts.get(t.task.instance_id);
    if (!verdict) return [];
    this.matched.add(t.task.instance_id);
    const findings: Finding[] = [];
    const o = t.outcome;
    if (o.success !== null && o.success_source !== 'unknown' && o.success_source !== 'self_report' && o.success !== verdict.resolved) {
      findings.push(trajFinding('evidence-overrides-label', { ...where, field: 'outcome.success' }, { label: o.success, report: verdict.file, verdict: verdict.resolved ? 'resolved' : 'unresolved' }));
    }
    o.success = verdict.resolved;
    o.success_source = verdict.source;
    o.success_evidence = verdict.file;
    return findings;
  }

  /** One info finding per report whose verdicts matched no trajectory read. */
  unmatched(): Finding[] {
    const out: Finding[] = [];
    for (const [file, ids] of this.perFile) {
      const missing = [...ids].filter((id) => !this.matched.has(id)).sort();
      if (missing.length) out.push(trajFinding('evidence-unmatched', { file }, { count: missing.length, total: ids.size, examples: missing.slice(0, 3).join(', ') }));
    }
    return out;
  }
}

function parseReportText(file: string, text: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (/\.(jsonl|ndjson)$/i.test(file)) return trimmed.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
  if (/\.txt$/i.test(file)) return trimmed.split('\n').map((l) => l.trim()).filter(Boolean);
  try {
    return JSON.parse(trimmed) as unknown;
  } catch (err) {
    // JSONL saved as .json is common enough to accept.
    const lines = trimmed.split('\n').filter((l) => l.trim());
    if (lines.length > 1) return lines.map((l) => JSON.parse(l) as unknown);
    throw err;
  }
}

export async function loadEvidence(vfs: Vfs, files: string[]): Promise<EvidenceIndex> {
  const index = new EvidenceIndex();
  for (const file of files) {
    let value: unknown;
    try {
      const stat = await vfs.stat(file);
      if (!stat?.isFile) {
        index.findings.push(trajFinding('evidence-unreadable', { file }, { reason: stat ? 'it is a directory' : 'no such file' }));
        continue;
      }
      value = parseReportText(file, await vfs.readText(file));
    } catch (err) {
      index.findings.push(trajFinding('evidence-unreadable', { file }, { reason: (err as Error).message }));
      continue;
    }
    const classified = classifyEvaluation(value);
    if (!classified) {
      index.findings.push(trajFinding('evidence-unknown-shape', { file }, { keys: isRecord(value) ? Object.keys(value).slice(0, 8).join(', ') : undefined }));
      continue;
    }
    if (classified.kind === 'predictions') {
      index.findings.push(trajFinding('evidence-predictions-only', { file }, { entries: classified.entries }));
      continue;
    }
    for (const [id, resolved, source] of classified.verdicts) index.add(file, id, resolved, source);
  }
  return index;
}
