/**
 * Where a checkpoint's proxy-instance scores come from: harness output folders, a score store or
 * score tables, through logs' ingestLogs or pace's loadPaceInputs. `predict` and `check` both
 * read through here, so they see identical numbers for identical inputs.
 */
import * as path from 'node:path';
import { verifyOutputSet } from '../../kernel/output.js';
import { findingFactory, type Finding, type Tally } from '../../kernel/findings.js';
import { paceFindings } from '../findings.js';
import { parseModelFile, type PaceModelFile } from './model-file.js';
import type { Vfs } from '../../kernel/vfs.js';
import { appendAll } from '../../kernel/arrays.js';
import type { FindingListener } from '../../kernel/finding-collector.js';
import type { ScoreMatrix } from '../../logs/matrix.js';

export type CheckpointSource = { kind: 'logs'; paths: string[] } | { kind: 'store'; paths: [string] } | { kind: 'sources'; paths: string[] };

export interface CheckpointInputs {
  matrix: ScoreMatrix | null;
  findings: Finding[];
  tallies: Record<string, Tally>;
}

export interface CheckpointReadOptions {
  /** Model-name mapping JSON applied to what is read. */
  mapping?: string;
  /** Score tables: policy for an id repeated with a different score (as in `fit`). */
  duplicates?: 'error' | 'first' | 'last';
  /** Every reader finding as it comes (the CLI's --findings-file); only a bounded number are returned. */
  onFinding?: FindingListener;
}

export async function loadCheckpointMatrix(vfs: Vfs, source: CheckpointSource, options: CheckpointReadOptions = {}): Promise<CheckpointInputs> {
  const mappingFile = options.mapping;
  if (source.kind === 'logs') {
    const logs = await import('../../logs/index.js');
    const findings: Finding[] = [];
    let mapping: Record<string, string> | undefined;
    if (mappingFile) {
      const read = await logs.readModelMapping(vfs, mappingFile, { onFinding: options.onFinding });
      findings.push(...read.findings);
      mapping = read.mapping;
    }
    const res = await logs.ingestLogs(vfs, source.paths, { ...(mapping ? { mapping } : {}), onFinding: options.onFinding });
    return { matrix: res.matrix, findings: appendAll(findings, res.findings), tallies: { logs: res.tally } };
  }
  const { loadPaceInputs } = await import('../inputs/inputs.js');
  const inputs = await loadPaceInputs(vfs, {
    ...(source.kind === 'store' ? { store: source.paths[0] } : { sources: source.paths }),
    ...(mappingFile ? { mapping: mappingFile } : {}),
    ...(options.duplicates ? { duplicates: options.duplicates } : {}),
  }, { onFinding: options.onFinding });
  return { matrix: inputs.matrix, findings: inputs.findings, tallies: inputs.tallies };
}

/**
 * The checkpoint-score source from `--logs` / `--store` / `--sources` (exactly one), as
 * `predict` and `check` both take it. Returns an error message for a usage error.
 */
export function checkpointSourceFromOptions(opts: { logs?: string[]; store?: string; sources?: string[] }): CheckpointSource | string {
  const given = [
    opts.logs ? ({ kind: 'logs', paths: opts.logs } as const) : null,
    opts.store ? ({ kind: 'store', paths: [opts.store] as [string] } as const) : null,
    opts.sources ? ({ kind: 'sources', paths: opts.sources } as const) : null,
  ].filter((s) => s !== null);
  if (given.length !== 1 || !given[0]) return 'give the checkpoint scores with exactly one of --logs DIR…, --store DIR or --sources PATH…';
  return given[0];
}

/** Reads and parses a model file; an unreadable or invalid one is a finding, never a crash. */
export async function readModelFile(vfs: Vfs, file: string): Promise<{ model: PaceModelFile; text: string } | { finding: Finding }> {
  const make = findingFactory(paceFindings);
  let text: string;
  try {
    text = await vfs.readText(file);
  } catch (e) {
    // A CI step pointed at a fit that did not run should fail like a bad file, not crash.
    return { finding: make('pace-model-file-invalid', { file }, { reason: `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` }) };
  }
  // model.json is one file of fit's set: a fit killed half way (or a model.json beside another fit's files) is refused.
  const torn = await verifyOutputSet(vfs, path.dirname(file), 'fit', [path.basename(file)]);
  if (torn.length) return { finding: torn[0]! };
  const parsed = parseModelFile(text);
  if (!parsed.model) return { finding: make('pace-model-file-invalid', { file }, { reason: parsed.reason }) };
  return { model: parsed.model, text };
}
