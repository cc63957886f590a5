/**
 * Reading trajectories from files, directories and globs: container detection (JSON document
 * or JSONL, streamed), format auto-detection through the reader registry, schema validation,
 * success-evidence joining, and per-file summaries. Bad input becomes findings; the rest of
 * the input is still read.
 */
import type { ProgressCallback } from '../kernel/progress.js';
import { walkTree, fsProblem, describeFsError } from '../kernel/walk.js';
import * as path from 'node:path';
import type { Finding, FindingPath, Tally } from '../kernel/findings.js';
import { countSkip, emptyTally } from '../kernel/findings.js';
import { sha256 } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { kernelFindings } from '../catalog.js';
import { finding } from '../kernel/findings.js';
import { classifyEvaluation, loadEvidence, type EvidenceIndex } from './evidence.js';
import { trajFinding } from './findings.js';
import { at, type RecordContext } from './readers/reader.js';
import { detectFormat, formatOrder, formatReaders, isFormatName, type FormatName } from './readers/registry.js';
import { validateTrajectory } from './schema.js';
import { estimateTokensFromChars, isRecord, repoFromInstanceId, typeName } from './text.js';
import type { Domain, Trajectory } from './types.js';
import { readAhead, readFile, type FileSummary, type TrajectoryEvent } from './containers.js';

export type { TrajectoryEvent } from './containers.js';
export { firstInvalidUtf8 } from '../kernel/utf8.js';
import { applyCtfFlagEvidence } from './ctf-flag.js';
import { appendAll } from '../kernel/arrays.js';
import { FindingCollector, type FindingListener } from '../kernel/finding-collector.js';

export { validateTrajectory } from './schema.js';

export interface ReadTrajectoriesOptions {
  /** Evaluation reports / label files to join for success evidence (paths). */
  reports?: string[];
  /** Files larger than this are rejected with a finding unless they are JSONL (streamed line by line). */
  maxFileBytes?: number;
  /** Force a format instead of auto-detection. */
  format?: string;
  /** Count tokens with the cl100k tokenizer instead of the chars/4 estimate (slower). */
  exactTokens?: boolean;
  /** Recorded as `source.license` (the data's licence is not in the files). Default `unknown`. */
  license?: string;
  /** Overrides the domain readers infer, e.g. `env_setup` for environment-setup runs of a SWE agent. */
  domain?: Domain;
  /** Overrides the detected natural language (`task.language`), e.g. `zh`. */
  language?: string;
  /** Files never read even when an input covers them (e.g. normalize's own --out inside an input folder). */
  exclude?: string[];
}
export type { FileSummary } from './containers.js';
export interface ReadTrajectoriesResult { trajectories: Trajectory[]; findings: Finding[]; tally: Tally; files: FileSummary[] }

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024;
const TRAJECTORY_EXTENSIONS = /\.(json|jsonl|ndjson|traj)$/i;
/** Formats of files that are recognised but hold no trajectories. */
export const EVALUATION_FORMATS = ['evaluation-report', 'predictions'] as const;

export function formatNames(): readonly FormatName[] {
  return formatOrder;
}

/** `success` key of a file summary: `true:harness_report`, `null:unknown`, … */
export function successKey(t: Trajectory): string {
  return `${String(t.outcome.success)}:${t.outcome.success_source}`;
}

type Token = (t: Trajectory) => number;
async function tokenCounter(exact: boolean): Promise<Token> {
  if (!exact) {
    // Same text as trajectoryText, measured without building it: the estimate only needs lengths.
    return (t) => {
      let chars = t.task.goal.length;
      for (const s of t.steps) chars += 3 + (s.thought?.length ?? 0) + (s.action.raw ?? s.action.text).length + (s.observation?.length ?? 0);
      return estimateTokensFromChars(chars);
    };
  }
  const { countTokens } = await import('gpt-tokenizer/encoding/cl100k_base');
  return (t) => countTokens(trajectoryText(t));
}

/** Text a model would read for this trajectory: the goal and every step. */
export function trajectoryText(t: Trajectory): string {
  let text = t.task.goal;
  for (const s of t.steps) text += `\n${s.thought ?? ''}\n${s.action.raw ?? s.action.text}\n${s.observation ?? ''}`;
  return text;
}

// ---------------------------------------------------------------------------------------
// Input expansion

function hasGlobChars(input: string): boolean {
  return /[*?[\]{}]/.test(input);
}

/** Trajectory files under `dir` (the kernel walker: loops and dangling links become findings); other extensions are tallied per folder. */
async function* walk(vfs: Vfs, dir: string, skipped: Map<string, number>, problems: Finding[]): AsyncGenerator<string> {
  const found = await walkTree(vfs, dir, {
    filter: (file) => {
      if (TRAJECTORY_EXTENSIONS.test(path.basename(file))) return true;
      const parent = path.dirname(file);
      skipped.set(parent, (skipped.get(parent) ?? 0) + 1);
      return false;
    },
  });
  appendAll(problems, found.findings);
  yield* found.files;
}

/** Files named, directories walked (sorted, recursive), globs expanded; each file once. */
async function* expandInputs(vfs: Vfs, inputs: string[], exclude: string[] = []): AsyncGenerator<{ file: string } | { finding: Finding }> {
  const seen = new Set<string>(exclude.map((f) => path.resolve(f)));
  const once = (file: string) => {
    const key = path.resolve(file);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  for (const input of inputs) {
    let stat;
    try {
      stat = await vfs.stat(input);
    } catch (err) {
      yield { finding: fsProblem(input, err) ?? trajFinding('traj-file-unreadable', { file: input }, { reason: describeFsError(err) }) };
      continue;
    }
    if (stat?.isFile) {
      if (once(input)) yield { file: input };
    } else if (stat?.isDirectory) {
      const skipped = new Map<string, number>();
      const problems: Finding[] = [];
      for await (const file of walk(vfs, input, skipped, problems)) if (once(file)) yield { file };
      for (const finding of problems) yield { finding };
      for (const [dir, count] of [...skipped].sort(([a], [b]) => a.localeCompare(b))) yield { finding: trajFinding('traj-skipped-extension', { file: dir }, { count, dir }) };
    } else if (hasGlobChars(input)) {
      const matches = await vfs.glob([input]);
      if (!matches.length) yield { finding: finding(kernelFindings, 'no-inputs', { file: input }, { patterns: input }) };
      for (const file of matches) if (once(file)) yield { file };
    } else {
      yield { finding: trajFinding('traj-input-missing', { file: input }, { input }) };
    }
  }
}

// ---------------------------------------------------------------------------------------
// Per-record handling

function fileStem(file: string): string {
  return path.basename(file).replace(/(\.traj)?(\.(json|jsonl|ndjson))?$/i, '').replace(/\.traj$/i, '') || path.basename(file);
}

function shapeOf(value: unknown): { shape: string; keys?: string } {
  if (isRecord(value)) return { shape: 'JSON object', keys: Object.keys(value).slice(0, 10).join(', ') };
  if (Array.isArray(value)) {
    const first = value.find(isRecord);
    return { shape: `JSON array of ${value.length} ${typeName(value[0])}s`, keys: first ? Object.keys(first).slice(0, 10).join(', ') : undefined };
  }
  return { shape: `JSON ${typeName(value)}` };
}

const EXPECTED_FORMATS = () => formatOrder.map((n) => formatReaders[n].title).join('; ');

class FileReader {
  readonly summary: FileSummary;
  private lastFormat: FormatName | null = null;
  constructor(
    readonly file: string,
    private readonly options: ReadTrajectoriesOptions,
    private readonly evidence: EvidenceIndex | undefined,
    private readonly seenIds: Map<string, string>,
    private readonly countTokens: Token,
    private readonly instanceSpellings: Map<string, string>,
  ) {
    this.summary = { file, format: null, trajectories: 0, steps: 0, success: {}, tokens: 0, rejected: 0 };
  }

  private noteFormat(name: string) {
    if (this.summary.format === null) this.summary.format = name;
    else if (this.summary.format !== name && this.summary.format !== 'mixed') this.summary.format = 'mixed';
  }

  reject(f: Finding): TrajectoryEvent[] {
    this.summary.rejected++;
    return [{ kind: 'finding', finding: f }];
  }

  private pick(value: unknown, container: 'document' | 'record'): FormatName | null {
    const forced = this.options.format;
    if (forced && isFormatName(forced)) return formatReaders[forced].detect(value) ? forced : null;
    if (this.lastFormat && formatReaders[this.lastFormat].containers.includes(container) && formatReaders[this.lastFormat].detect(value)) return this.lastFormat;
    return detectFormat(value, container);
  }

  /** One parsed JSON value: a whole document (which may be an array of records) or a JSONL record. */
  /** `raw` is the record's source text, its UTF-8 bytes (hashed as they are: same digest, no re-encoding), or a function giving it. */
  handle(value: unknown, container: 'document' | 'record', where: { line?: number; record?: number }, raw: string | Uint8Array | (() => string)): TrajectoryEvent[] {
    const pathAt: FindingPath = { file: this.file, ...where };
    const name = this.pick(value, container);
    if (!name) {
      if (container === 'document' && Array.isArray(value) && value.length && value.every(isRecord) && !this.options.format) {
        const evaluation = classifyEvaluation(value);
        if (evaluation) return this.evaluationFile(evaluation);
        // An array of records, read one by one — unless none of them is recognisable, which is
        // one unknown document rather than N unknown records.
        if (value.some((element) => this.pick(element, 'record') !== null)) {
          const out: TrajectoryEvent[] = [];
          value.forEach((element, record) => out.push(...this.handle(element, 'record', { record }, () => JSON.stringify(element))));
          return out;
        }
      }
      if (!this.options.format && (container === 'document' || where.line !== undefined)) {
        const evaluation = classifyEvaluation(value);
        if (evaluation) return this.evaluationFile(evaluation);
      }
      if (this.options.format) {
        const title = isFormatName(this.options.format) ? formatReaders[this.options.format].title : this.options.format;
        return this.reject(trajFinding('traj-format-mismatch', pathAt, { format: this.options.format, title }));
      }
      return this.reject(trajFinding('traj-unknown-format', pathAt, { ...shapeOf(value), expected: EXPECTED_FORMATS() }));
    }
    this.lastFormat = name;
    this.noteFormat(name);
    let contentHash: string | undefined;
    const ctx: RecordContext = {
      file: this.file,
      ...where,
      fileStem: fileStem(this.file),
      // Hashing a record costs about as much as parsing it, and only records without a run id
      // of their own need the hash: computed on first use.
      get contentHash() {
        return (contentHash ??= sha256(typeof raw === 'function' ? raw() : raw).slice(0, 10));
      },
      license: this.options.license ?? 'unknown',
      findings: [],
    };
    let trajectory: Trajectory | undefined;
    try {
      trajectory = formatReaders[name].read(value, ctx);
    } catch (err) {
      // A shape the reader did not foresee costs this record, not the run.
      ctx.findings.push(trajFinding('traj-reader-failed', at(ctx), { format: name, detail: (err as Error).message }));
    }
    const out: TrajectoryEvent[] = [];
    const errors = ctx.findings.filter((f) => f.severity === 'error');
    if (!trajectory || errors.length) {
      this.summary.rejected++;
      for (const f of ctx.findings) out.push({ kind: 'finding', finding: f });
      return out;
    }
    if (name === 'canonical-jsonl' && this.options.license && trajectory.source.license === 'unknown') trajectory.source.license = this.options.license;
    const invalid = validateTrajectory(trajectory, at(ctx));
    if (invalid.length) {
      this.summary.rejected++;
      for (const f of [...ctx.findings, ...invalid]) out.push({ kind: 'finding', finding: f });
      return out;
    }
    if (this.options.domain) trajectory.domain = this.options.domain;
    if (this.options.language) trajectory.task.language = this.options.language;
    // After the domain is final (a --domain ctf run is judged as one) and before reports, which override it.
    applyCtfFlagEvidence(trajectory);
    this.unifyInstanceCase(trajectory, ctx);
    if (!trajectory.task.goal.trim()) ctx.findings.push(trajFinding('traj-missing-goal', at(ctx, 'task.goal'), {}));
    if (this.evidence) ctx.findings.push(...this.evidence.apply(trajectory, { file: this.file, ...where }));
    const first = this.seenIds.get(trajectory.traj_id);
    if (first !== undefined) ctx.findings.push(trajFinding('traj-duplicate-id', at(ctx, 'traj_id'), { trajId: trajectory.traj_id, first }));
    else this.seenIds.set(trajectory.traj_id, this.file);
    for (const f of ctx.findings) out.push({ kind: 'finding', finding: f });
    this.summary.trajectories++;
    this.summary.steps += trajectory.steps.length;
    const key = successKey(trajectory);
    this.summary.success[key] = (this.summary.success[key] ?? 0) + 1;
    this.summary.tokens += this.countTokens(trajectory);
    out.push({ kind: 'trajectory', trajectory });
    return out;
  }

  /**
   * One instance spelled two ways (`SWE-agent__test-repo-1` from a replay config,
   * `swe-agent__test-repo-1` from a file name) is one instance: later spellings take the first
   * one read, so one report row labels both, and a warning says so.
   */
  private unifyInstanceCase(trajectory: Trajectory, ctx: RecordContext): void {
    const id = trajectory.task.instance_id;
    const key = `${trajectory.source.framework}\u0000${id.toLowerCase()}`;
    const first = this.instanceSpellings.get(key);
    if (first === undefined) {
      this.instanceSpellings.set(key, id);
      return;
    }
    if (first === id) return;
    const prefix = `${trajectory.source.framework}:${id}:`;
    if (trajectory.traj_id.startsWith(prefix)) trajectory.traj_id = `${trajectory.source.framework}:${first}:${trajectory.traj_id.slice(prefix.length)}`;
    trajectory.task.instance_id = first;
    const derivedRepo = repoFromInstanceId(id);
    if (derivedRepo !== null && trajectory.environment.repo === derivedRepo) trajectory.environment.repo = repoFromInstanceId(first);
    ctx.findings.push(trajFinding('traj-instance-id-case', at(ctx, 'task.instance_id'), { id, canonical: first }));
  }

  private evaluation: { kind: 'report' | 'predictions'; entries: number } | null = null;

  /** Evaluation reports / predictions among the inputs are recognised and skipped, not rejected. */
  private evaluationFile(evaluation: NonNullable<ReturnType<typeof classifyEvaluation>>): TrajectoryEvent[] {
    const entries = evaluation.kind === 'report' ? evaluation.verdicts.length : evaluation.entries;
    this.evaluation ??= { kind: evaluation.kind, entries: 0 };
    this.evaluation.entries += entries;
    if (this.summary.format === null) this.summary.format = evaluation.kind === 'report' ? 'evaluation-report' : 'predictions';
    return [];
  }

  /** Findings due once the whole file has been read. */
  finish(): TrajectoryEvent[] {
    if (!this.evaluation) return [];
    return [{ kind: 'finding', finding: trajFinding('traj-not-a-trajectory', { file: this.file }, { ...this.evaluation }) }];
  }
}

// ---------------------------------------------------------------------------------------
// Public API

/**
 * Streams trajectories, findings and one summary per file, in input order (directories
 * sorted). Memory is bounded by the largest single JSON document or JSONL line.
 */
export async function* streamTrajectories(vfs: Vfs, inputs: string[], options: ReadTrajectoriesOptions = {}): AsyncGenerator<TrajectoryEvent> {
  if (options.format !== undefined && !isFormatName(options.format)) {
    throw new RangeError(`unknown format ${options.format}; expected one of ${formatOrder.join(', ')}`);
  }
  const evidence = options.reports?.length ? await loadEvidence(vfs, options.reports) : undefined;
  for (const f of evidence?.findings ?? []) yield { kind: 'finding', finding: f };
  const countTokens = await tokenCounter(options.exactTokens ?? false);
  const seenIds = new Map<string, string>();
  const instanceSpellings = new Map<string, string>();
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const ahead = readAhead(vfs, maxBytes);
  const items = expandInputs(vfs, inputs, options.exclude)[Symbol.asyncIterator]();
  for (let current = await items.next(); !current.done; ) {
    const item = current.value;
    // Find the next file, and start reading it, while this one is converted (see readAhead).
    const upcoming = items.next();
    upcoming.then((next) => !next.done && 'file' in next.value && ahead.warm(next.value.file), () => undefined);
    if ('finding' in item) yield { kind: 'finding', finding: item.finding };
    else {
      const reader = new FileReader(item.file, options, evidence, seenIds, countTokens, instanceSpellings);
      yield* readFile(ahead.vfs, reader, maxBytes);
      yield* reader.finish();
      yield { kind: 'file', summary: reader.summary };
    }
    current = await upcoming;
  }
  for (const f of evidence?.unmatched() ?? []) yield { kind: 'finding', finding: f };
}

/**
 * Every trajectory at once, with the read / accepted / rejected tally; findings past the first
 * 1,000 of a code reach only `onFinding` and are folded (TALLY_CODES are all held).
 */
export async function readTrajectories(vfs: Vfs, inputs: string[], options: ReadTrajectoriesOptions & { onFinding?: FindingListener } = {}, onProgress?: ProgressCallback): Promise<ReadTrajectoriesResult> {
  const result: ReadTrajectoriesResult = { trajectories: [], findings: [], tally: emptyTally(), files: [] };
  // Bad records can outnumber good ones by millions: every finding goes to `onFinding`, a bounded number are held.
  const collector = new FindingCollector({ keepAll: TALLY_CODES, onFinding: options.onFinding });
  for await (const ev of streamTrajectories(vfs, inputs, options)) {
    if (ev.kind === 'trajectory') {
      result.trajectories.push(ev.trajectory);
      onProgress?.(result.trajectories.length, undefined, 'trajectories read');
    }
    else if (ev.kind === 'finding') await collector.add(ev.finding);
    else result.files.push(ev.summary);
  }
  result.findings = collector.findings();
  result.tally = tallyOf(result.files, result.findings);
  return result;
}

/** The finding codes `tallyOf` counts from: a collector that bounds findings must keep all of these. */
export const TALLY_CODES: ReadonlySet<string> = new Set(['traj-input-missing', 'no-inputs', 'traj-file-unreadable', 'traj-skipped-extension']);

/** read = accepted + rejected records; evaluation files and skipped extensions count as skipped. */
export function tallyOf(files: FileSummary[], findings: Finding[]): Tally {
  const tally = emptyTally();
  for (const f of files) {
    tally.accepted += f.trajectories;
    tally.rejected += f.rejected;
    if (f.format === 'evaluation-report' || f.format === 'predictions') countSkip(tally, f.format);
  }
  for (const f of findings) {
    if (f.code === 'traj-input-missing' || f.code === 'no-inputs' || (f.code === 'traj-file-unreadable' && !files.some((s) => s.file === f.path.file))) tally.rejected++;
    if (f.code === 'traj-skipped-extension') {
      tally.skipped ??= {};
      tally.skipped.extension = (tally.skipped.extension ?? 0) + Number(f.args.count);
    }
  }
  tally.read = tally.accepted + tally.rejected;
  return tally;
}
