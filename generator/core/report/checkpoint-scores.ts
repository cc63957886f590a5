/**
 * Where a checkpoint's proxy-instance scores come from: harness output folders, a score store or
 * score tables. The same readers `aptpace predict` uses (logs' ingestLogs, pace's loadPaceInputs),
 * so check and predict see identical numbers for identical inputs.
 */
import type { Finding, Tally } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import type { ScoreMatrix } from '../logs/matrix.js';

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
}

export async function loadCheckpointMatrix(vfs: Vfs, source: CheckpointSource, options: CheckpointReadOptions = {}): Promise<CheckpointInputs> {
  const mappingFile = options.mapping;
  if (source.kind === 'logs') {
    const logs = await import('../logs/index.js');
    const findings: Finding[] = [];
    let mapping: Record<string, string> | undefined;
    if (mappingFile) {
      const read = await logs.readModelMapping(vfs, mappingFile);
      findings.push(...read.findings);
      mapping = read.mapping;
    }
    const res = await logs.ingestLogs(vfs, source.paths, mapping ? { mapping } : {});
    return { matrix: res.matrix, findings: [...findings, ...res.findings], tallies: { logs: res.tally } };
  }
  const { loadPaceInputs } = await import('../pace/inputs.js');
  const inputs = await loadPaceInputs(vfs, {
    ...(source.kind === 'store' ? { store: source.paths[0] } : { sources: source.paths }),
    ...(mappingFile ? { mapping: mappingFile } : {}),
    ...(options.duplicates ? { duplicates: options.duplicates } : {}),
  });
  return { matrix: inputs.matrix, findings: inputs.findings, tallies: inputs.tallies };
}
