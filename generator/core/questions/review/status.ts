/**
 * Review decisions live in a JSONL status file, one `{id, status, note?}` per line, keyed by
 * the content-derived question id. Because the id does not change when a set is rebuilt from
 * the same trajectories, decisions survive rebuilds; ids that disappear are reported as stale
 * and kept, never dropped silently. Decisions exported by the review page use the same format.
 */
import { type Finding, type Tally, emptyTally, findingFactory } from '../../kernel/findings.js';
import { readJsonlValues } from '../../kernel/jsonl.js';
import { contentId } from '../../kernel/stable-json.js';
import type { Vfs } from '../../kernel/vfs.js';
import { FindingCollector, type FindingListener } from '../../kernel/finding-collector.js';
import type { Question } from '../types.js';
import { reviewFindings } from './findings.js';

const make = findingFactory(reviewFindings);

export const REVIEW_STATUSES = ['approved', 'rejected', 'pending'] as const;
export type ReviewStatusValue = (typeof REVIEW_STATUSES)[number];

export interface ReviewStatus {
  status: ReviewStatusValue;
  note?: string;
  /**
   * `reviewContentHash` of the question as the reviewer saw it. Ids survive rebuilds even when
   * a distractor or the prompt changes; this tells a decision about the old text from one about
   * the current text. Entries without it (hand-written) apply to any version.
   */
  content?: string;
}

export type ReviewStatuses = Map<string, ReviewStatus>;

const KNOWN_FIELDS = new Set(['id', 'status', 'note', 'content']);

/** Hash of everything a reviewer judges: prompt, stem and answers (not provenance or token counts). */
export function reviewContentHash(q: Question): string {
  const answers = q.format === 'mcq' ? { choices: q.choices, gold: q.gold } : { targets: q.targets, metric: q.metric };
  return contentId({ format: q.format, prompt: q.prompt, answer_stem: q.answer_stem, ...answers });
}

export interface LoadedStatus {
  statuses: ReviewStatuses;
  findings: Finding[];
  tally: Tally;
  /** Line of each id's winning entry, for reports. */
  lines: Map<string, number>;
}

/**
 * Reads a status (or decisions) file. A missing file is an empty review unless `mustExist`
 * (e.g. `build --require-review`), where it is an error. Bad lines are reported with
 * file, line and field and skipped; later lines for the same id win. Every finding goes to
 * `onFinding`; only the first of each code are held (a file of a million bad lines is read in
 * bounded memory).
 */
export async function loadReviewStatus(vfs: Vfs, file: string, options: { mustExist?: boolean; onFinding?: FindingListener } = {}): Promise<LoadedStatus> {
  const statuses: ReviewStatuses = new Map();
  const lines = new Map<string, number>();
  const findings = new FindingCollector({ onFinding: options.onFinding });
  const tally = emptyTally();
  const stat = await vfs.stat(file);
  if (!stat || !stat.isFile) {
    if (options.mustExist) await findings.add(make('review-status-missing', { file }, { file }));
    return { statuses, findings: findings.findings(), tally, lines };
  }
  for await (const ev of readJsonlValues(vfs, file)) {
    tally.read++;
    if (ev.kind === 'invalid-utf8' || ev.kind === 'invalid-json') {
      tally.rejected++;
      await findings.add(ev.kind === 'invalid-utf8' ? make('review-status-invalid-utf8', { file, line: ev.line }) : make('review-status-invalid-json', { file, line: ev.line }, { reason: ev.message }));
      continue;
    }
    if (!ev.terminated) await findings.add(make('review-status-unterminated-line', { file, line: ev.line }));
    const parsed = parseEntry(ev.value);
    if ('problem' in parsed) {
      tally.rejected++;
      await findings.add(make('review-status-invalid-entry', { file, line: ev.line, field: parsed.field }, { problem: parsed.problem }));
      continue;
    }
    for (const field of parsed.unknownFields) await findings.add(make('review-status-unknown-field', { file, line: ev.line, field }, { field }));
    const firstLine = lines.get(parsed.id);
    if (firstLine !== undefined) await findings.add(make('review-status-duplicate-id', { file, line: ev.line, field: 'id' }, { id: parsed.id, firstLine }));
    statuses.set(parsed.id, parsed.entry);
    lines.set(parsed.id, ev.line);
    tally.accepted++;
  }
  return { statuses, findings: findings.findings(), tally, lines };
}

function parseEntry(value: unknown): { id: string; entry: ReviewStatus; unknownFields: string[] } | { problem: string; field?: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'entry must be a JSON object' };
  const record = value as Record<string, unknown>;
  if (typeof record.id !== 'string' || record.id.length === 0) return { problem: 'id must be a non-empty string', field: 'id' };
  if (!REVIEW_STATUSES.includes(record.status as ReviewStatusValue)) {
    return { problem: `status must be one of ${REVIEW_STATUSES.join(', ')}`, field: 'status' };
  }
  if (record.note !== undefined && typeof record.note !== 'string') return { problem: 'note must be a string', field: 'note' };
  if (record.content !== undefined && (typeof record.content !== 'string' || !/^[0-9a-f]{16}$/.test(record.content))) {
    return { problem: 'content must be the 16-hex-digit hash the review page recorded', field: 'content' };
  }
  const entry: ReviewStatus = { status: record.status as ReviewStatusValue };
  if (typeof record.note === 'string' && record.note.trim() !== '') entry.note = record.note;
  if (typeof record.content === 'string') entry.content = record.content;
  const unknownFields = Object.keys(record).filter((k) => !KNOWN_FIELDS.has(k)).sort();
  return { id: record.id, entry, unknownFields };
}

/** True when the decision was made on a different version of the question than `q`. */
export function isOutdated(q: Question, status: ReviewStatus): boolean {
  return status.content !== undefined && status.content !== reviewContentHash(q);
}

/**
 * Only the approved questions, in their input order (what `build --require-review` keeps). An
 * approval recorded for an older version of a question (its content hash differs) does not
 * carry over: what was approved is not what would be built.
 */
export function filterApproved<Q extends Question>(questions: readonly Q[], statuses: ReadonlyMap<string, ReviewStatus>): Q[] {
  return questions.filter((q) => {
    const s = statuses.get(q.id);
    return s?.status === 'approved' && !isOutdated(q, s);
  });
}

export interface ReviewCoverage {
  approved: number;
  rejected: number;
  pending: number;
  /** Questions with no entry at all. */
  unreviewed: number;
  /** Ids with a decision but no question in this set, sorted. */
  stale: string[];
  /** Ids whose decision was made on a different version of the question, sorted (counted as unreviewed). */
  outdated: string[];
}

/** How far review has got for this set, and which decisions no longer match a question. */
export function reviewCoverage(questions: readonly Question[], statuses: ReadonlyMap<string, ReviewStatus>): ReviewCoverage {
  const ids = new Set(questions.map((q) => q.id));
  const coverage: ReviewCoverage = { approved: 0, rejected: 0, pending: 0, unreviewed: 0, stale: [], outdated: [] };
  const seen = new Set<string>();
  for (const q of questions) {
    if (seen.has(q.id)) continue;
    seen.add(q.id);
    const s = statuses.get(q.id);
    if (!s) coverage.unreviewed++;
    else if (isOutdated(q, s)) {
      coverage.unreviewed++;
      coverage.outdated.push(q.id);
    } else coverage[s.status]++;
  }
  coverage.outdated.sort();
  coverage.stale = [...statuses.keys()].filter((id) => !ids.has(id)).sort();
  return coverage;
}

/** The stale- and outdated-decision warnings (one finding each for the file, listing the ids). */
export function staleFindings(coverage: ReviewCoverage, file: string): Finding[] {
  const out: Finding[] = [];
  if (coverage.stale.length) out.push(make('review-status-stale', { file }, { file, count: coverage.stale.length, ids: coverage.stale }));
  if (coverage.outdated.length) out.push(make('review-status-outdated', { file }, { file, count: coverage.outdated.length, ids: coverage.outdated }));
  return out;
}

export interface MergeResult {
  statuses: ReviewStatuses;
  /** Decisions that changed an entry. */
  changed: number;
  /** Decisions identical to what the status file already said. */
  unchanged: number;
  /** Decisions not applied because their id is not a question of the set. */
  unknown: number;
  findings: Finding[];
}

/**
 * Applies decisions on top of the current statuses. A decision is applied only if its id is
 * a question of the set; unknown ids are reported with their line. Existing entries for ids
 * outside the set are carried over untouched (they are stale, not wrong).
 */
export function mergeDecisions(
  current: ReadonlyMap<string, ReviewStatus>,
  decisions: ReadonlyMap<string, ReviewStatus>,
  questionIds: ReadonlySet<string>,
  where: { file: string; lines?: ReadonlyMap<string, number> },
): MergeResult {
  const statuses: ReviewStatuses = new Map(current);
  const findings: Finding[] = [];
  let changed = 0;
  let unchanged = 0;
  let unknown = 0;
  for (const [id, decision] of [...decisions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!questionIds.has(id)) {
      unknown++;
      findings.push(make('review-decision-unknown-id', { file: where.file, line: where.lines?.get(id), field: 'id' }, { id }));
      continue;
    }
    const before = statuses.get(id);
    if (before && before.status === decision.status && before.note === decision.note && before.content === decision.content) unchanged++;
    else changed++;
    statuses.set(id, { ...decision });
  }
  return { statuses, changed, unchanged, unknown, findings };
}

/** Status file bytes: one entry per line, sorted by id, fixed key order, so diffs stay small. */
export function serializeStatus(statuses: ReadonlyMap<string, ReviewStatus>): string {
  let out = '';
  for (const id of [...statuses.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const s = statuses.get(id)!;
    const entry: Record<string, string> = { id, status: s.status };
    if (s.note !== undefined) entry.note = s.note;
    if (s.content !== undefined) entry.content = s.content;
    out += `${JSON.stringify(entry)}\n`;
  }
  return out;
}
