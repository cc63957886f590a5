/**
 * The models × instances score matrix: what `ingest` writes and `fit`/`evaluate` read.
 * Values are row-major Float64 (model-major); `NaN` never appears — missing cells are
 * marked in `observed` (1 = observed) and hold 0 in `values` only as a placeholder.
 */
export interface InstanceRef {
  /** Stable instance key: `<task>/<question id>` for our suites, `<task>/<doc_id>` for other harness logs, `<benchmark>/<id>` for tables. */
  key: string;
  /** Source benchmark / harness task: the unit of the skill map and of benchmark-level baselines. */
  task: string;
  doc_id: string;
  /** Our question id (`id` in the emitted doc) when the task is one of our suites; then `doc_id` is the same id. */
  question_id?: string;
  /** Metric used for this instance's scores (e.g. `acc`, `exact_match,strict-match`). */
  metric: string;
  /** Content hashes from the harness when present (doc_hash, prompt_hash, target_hash). */
  doc_hash?: string | null;
}

export interface ModelRef {
  /** Name after applying the mapping file. */
  name: string;
  /** Names / folders it was read from. */
  sources: string[];
}

export interface ScoreMatrix {
  models: ModelRef[];
  instances: InstanceRef[];
  /** length models.length * instances.length; row i = model i. */
  values: Float64Array;
  /** length models.length * instances.length; 1 where observed. */
  observed: Uint8Array;
  /** Free-form provenance: inputs, harness versions, metric choices, supersessions. */
  provenance: Record<string, unknown>;
}

/** Agentic targets: per model an aggregate, optionally per instance. */
export interface TargetTable {
  /** Target benchmark name, e.g. `swe-bench`. */
  target: string;
  /** Score per model name (after mapping), as a fraction in [0,1] or the source's scale (see `scale`). */
  scores: Record<string, number>;
  scale: 'fraction' | 'percent' | 'raw';
  /** Optional per-instance outcomes: model → instance id → 0/1. */
  perInstance?: Record<string, Record<string, number>>;
  provenance: Record<string, unknown>;
}

export function cellIndex(m: ScoreMatrix, model: number, instance: number): number {
  return model * m.instances.length + instance;
}

export function getScore(m: ScoreMatrix, model: number, instance: number): number | undefined {
  const i = cellIndex(m, model, instance);
  return m.observed[i] ? m.values[i] : undefined;
}
