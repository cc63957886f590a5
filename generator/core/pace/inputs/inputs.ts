/**
 * Where fit / evaluate / predict get their matrix and targets: a saved store (`ingest`'s
 * output), or score tables + target files read directly with the logs domain's readers.
 */
import { parseJson } from '../../kernel/json.js';
import type { Finding, Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { appendAll } from '../../kernel/arrays.js';
import type { FindingListener } from '../../kernel/finding-collector.js';
import type { ScoreMatrix, TargetTable } from '../../logs/matrix.js';

export interface PaceInputSpec {
  store?: string;
  sources?: string[];
  targets?: string[];
  /** Model-name mapping file (JSON {from: to}), applied to sources and targets. */
  mapping?: string;
  /** Target-name mapping file (JSON {from: to}). */
  targetNames?: string;
  /** Score tables: policy for an id repeated with a different score. */
  duplicates?: 'error' | 'first' | 'last';
}

export interface PaceInputs {
  matrix: ScoreMatrix | null;
  targets: TargetTable[];
  findings: Finding[];
  tallies: Record<string, Tally>;
}

async function readNameMap(vfs: Vfs, file: string): Promise<Record<string, string>> {
  const raw = parseJson(await vfs.readText(file)) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(raw).filter(([k, v]) => !k.startsWith('$') && typeof v === 'string')) as Record<string, string>;
}

/** Reads the inputs `spec` names; every reader finding also goes to `onFinding` as it comes (only a bounded number are returned). */
export async function loadPaceInputs(vfs: Vfs, spec: PaceInputSpec, options: { onFinding?: FindingListener } = {}): Promise<PaceInputs> {
  const logs = await import('../../logs/index.js');
  const findings: Finding[] = [];
  const onFinding = options.onFinding;
  // The tables' mapping-unused is narrowed once the targets are read, and reaches the listener in that form with the result.
  const tableListener = onFinding && ((f: Finding) => (f.code === 'mapping-unused' ? undefined : onFinding(f)));
  const tallies: Record<string, Tally> = {};
  let matrix: ScoreMatrix | null = null;
  let targets: TargetTable[] = [];
  let mapping: Record<string, string> | undefined;
  if (spec.mapping) {
    const m = await logs.readModelMapping(vfs, spec.mapping, { onFinding });
    mapping = m.mapping;
    appendAll(findings, m.findings);
  }
  const targetNames = spec.targetNames ? await readNameMap(vfs, spec.targetNames) : undefined;
  if (spec.store) {
    const res = await logs.tryLoadStore(vfs, spec.store);
    findings.push(...res.findings);
    if (res.store) {
      matrix = res.store.matrix;
      targets = res.store.targets;
    }
  }
  if (spec.sources?.length) {
    const res = await logs.readScoreTables(vfs, spec.sources, { ...(mapping ? { mapping } : {}), ...(spec.duplicates ? { duplicates: spec.duplicates } : {}), onFinding: tableListener });
    appendAll(findings, res.findings);
    tallies.sources = res.tally;
    if (matrix) {
      // A cell or document the store and the tables disagree on is a finding, not a silent choice.
      const merged = logs.mergeMatrices(matrix, res.matrix, { ...(onFinding ? { onFinding } : {}), labels: [spec.store ?? 'store', 'score tables'] });
      appendAll(findings, merged.findings);
      matrix = merged.matrix;
    } else matrix = res.matrix;
  }
  if (spec.targets?.length) {
    const res = await logs.readTargets(vfs, spec.targets, { ...(mapping ? { mapping } : {}), ...(targetNames ? { targetNames } : {}), onFinding });
    appendAll(findings, res.findings);
    if (mapping && spec.sources?.length) logs.narrowUnusedAliases(findings, new Set(res.usedAliases));
    tallies.targets = res.tally;
    const names = new Set(res.targets.map((t) => t.target));
    targets = [...targets.filter((t) => !names.has(t.target)), ...res.targets];
  }
  return { matrix, targets, findings, tallies };
}
