/**
 * From a score matrix and target tables to what PACE fits on. Missing data policy (never
 * zero-filled, unlike PACE's loader):
 *  1. a model with no observed source cell, or with coverage below `minModelCoverage`, leaves
 *     the pool (one sparse model must not shrink everybody's instance set);
 *  2. an instance is selectable only if every remaining pool model has it and its scores vary;
 *  3. per target, only models with both a target score and a pool row are used.
 */
import type { ScoreMatrix, TargetTable } from '../../logs/matrix.js';
import { findingFactory, type Finding } from '../../kernel/findings.js';
import { Rng } from '../../kernel/rng.js';
import { paceFindings } from '../findings.js';
import type { PaceData, PreparedTarget } from '../types.js';
import { bootstrapTargets } from './bootstrap.js';

const make = findingFactory(paceFindings);

export const minimumModelsPerTarget = 4;

export interface PrepareOptions {
  minModelCoverage?: number;
  /**
   * Below this share of instances observed for every pool model (default 0.5), the models
   * whose gaps block the most leave the pool (see `dropBlockingModels`); 0 never drops one.
   */
  minCompleteShare?: number;
  bootstrap: number;
  seed: string;
  /** Restrict to these target names (all when absent). */
  targets?: string[];
  /**
   * `targets` (default): the pool is the source models with at least one target score, so a
   * source-only model never removes instances from selection. `all`: every source model
   * (useful only for the transductive global SVD, `svdScope: 'all'`).
   */
  poolScope?: 'targets' | 'all';
}

export function displayFactorFor(scale: TargetTable['scale']): number {
  return scale === 'percent' ? 100 : 1;
}

export function prepareData(input: ScoreMatrix, tables: TargetTable[], options: PrepareOptions): { data: PaceData | null; findings: Finding[] } {
  const findings: Finding[] = [];
  const matrix = withoutBadScores(input, findings);
  const nModels = matrix.models.length;
  const nInst = matrix.instances.length;
  const minCoverage = options.minModelCoverage ?? 0.7;
  const keptRows: number[] = [];
  const wantedTargets = options.targets ? new Set(options.targets) : null;
  const withTarget = new Set<string>();
  for (const t of tables) if (!wantedTargets || wantedTargets.has(t.target)) for (const [m, v] of Object.entries(t.scores)) if (Number.isFinite(v)) withTarget.add(m);
  for (let r = 0; r < nModels; r++) {
    if ((options.poolScope ?? 'targets') === 'targets' && !withTarget.has((matrix.models[r] as { name: string }).name)) {
      findings.push(make('pace-source-model-not-in-pool', { record: r }, { model: (matrix.models[r] as { name: string }).name }));
      continue;
    }
    let observed = 0;
    for (let c = 0; c < nInst; c++) observed += matrix.observed[r * nInst + c] as number;
    const model = (matrix.models[r] as { name: string }).name;
    if (observed === 0) findings.push(make('pace-model-no-scores', { record: r }, { model }));
    else if (observed / nInst < minCoverage)
      findings.push(make('pace-model-low-coverage', { record: r }, { model, observed, instances: nInst, coverage: observed / nInst, minCoverage }));
    else keptRows.push(r);
  }
  keptRows.sort((a, b) => cmp((matrix.models[a] as { name: string }).name, (matrix.models[b] as { name: string }).name));
  dropBlockingModels(matrix, keptRows, options.minCompleteShare ?? DEFAULT_MIN_COMPLETE_SHARE, findings);
  const models = keptRows.map((r) => (matrix.models[r] as { name: string }).name);
  findings.push(...degenerateTasks(matrix, keptRows));

  const usable: number[] = [];
  const partial: Array<{ col: number; missing: Int32Array }> = [];
  // A column missed by more pool models than any cross-validation fold holds out can never be
  // complete over a fold's training models (leave-one-out up to 50 models, else 10 folds; +1 for
  // evaluate's inner folds).
  const foldMissing = keptRows.length <= 50 ? 2 : Math.ceil(keptRows.length / 10) + 1;
  const incompleteByTask = new Map<string, number>();
  let incomplete = 0;
  let constant = 0;
  for (let c = 0; c < nInst; c++) {
    let complete = true;
    let first = NaN;
    let varies = false;
    for (const r of keptRows) {
      const i = r * nInst + c;
      if (!matrix.observed[i]) {
        complete = false;
        const missing: number[] = [];
        keptRows.forEach((rr, p) => {
          if (missing.length <= foldMissing && !matrix.observed[rr * nInst + c]) missing.push(p);
        });
        if (missing.length <= foldMissing) partial.push({ col: c, missing: Int32Array.from(missing) });
        break;
      }
      const v = matrix.values[i] as number;
      if (Number.isNaN(first)) first = v;
      else if (v !== first) varies = true;
    }
    const task = (matrix.instances[c] as { task: string }).task;
    if (!complete) {
      incomplete++;
      incompleteByTask.set(task, (incompleteByTask.get(task) ?? 0) + 1);
    } else if (!varies) constant++;
    else usable.push(c);
  }
  if (incomplete)
    findings.push(
      make('pace-instances-incomplete', {}, {
        count: incomplete,
        byTask: [...incompleteByTask.entries()].sort(([a], [b]) => cmp(a, b)).map(([t, n]) => `${t}=${n}`).join(', '),
        perTask: Object.fromEntries([...incompleteByTask.entries()].sort(([a], [b]) => cmp(a, b))),
      }),
    );
  if (constant) findings.push(make('pace-instances-constant', {}, { count: constant }));
  if (keptRows.length === 0 || usable.length === 0) {
    findings.push(make('pace-no-usable-instances', {}, { models: keptRows.length }));
    return { data: null, findings };
  }

  const rowOf = new Map(models.map((m, i) => [m, i]));
  const targets: PreparedTarget[] = [];
  const rng = new Rng(options.seed);
  const wanted = options.targets ? new Set(options.targets) : null;
  if (wanted)
    for (const t of wanted)
      if (!tables.some((tab) => tab.target === t))
        findings.push(make('pace-unknown-target', {}, { target: t, available: tables.map((x) => x.target).sort().join(', ') }));
  for (const table of [...tables].sort((a, b) => cmp(a.target, b.target))) {
    if (wanted && !wanted.has(table.target)) continue;
    const factor = displayFactorFor(table.scale);
    const rows: number[] = [];
    for (const [model, score] of Object.entries(table.scores)) {
      if (!Number.isFinite(score)) continue;
      if (table.scale !== 'raw' && !(score / factor >= 0 && score / factor <= 1)) {
        findings.push(make('pace-target-score-invalid', { field: `${table.target}.${model}` }, { target: table.target, model, value: score, scale: table.scale }));
        continue;
      }
      const row = rowOf.get(model);
      if (row === undefined) findings.push(make('pace-target-model-not-in-sources', {}, { target: table.target, model }));
      else rows.push(row);
    }
    for (const model of models) if (!Number.isFinite(table.scores[model])) findings.push(make('pace-source-model-without-target', {}, { target: table.target, model }));
    rows.sort((a, b) => a - b);
    if (rows.length < minimumModelsPerTarget) {
      findings.push(make('pace-target-too-few-models', {}, { target: table.target, models: rows.length, minimum: minimumModelsPerTarget }));
      continue;
    }
    const y = Float64Array.from(rows, (r) => (table.scores[models[r] as string] as number) / factor);
    // (rows hold only models whose score passed the range check above)
    if (y.every((v) => v === y[0])) {
      findings.push(make('pace-target-constant', {}, { target: table.target }));
      continue;
    }
    const perInstance = rows.map((r) => table.perInstance?.[models[r] as string]);
    const { yBoot, instanceCount } = bootstrapTargets(y, perInstance, options.bootstrap, rng.fork(`target/${table.target}`), 1);
    if (!yBoot && options.bootstrap > 0) findings.push(make('pace-target-no-instances', {}, { target: table.target }));
    targets.push({
      name: table.target,
      scale: table.scale,
      displayFactor: factor,
      rows: Int32Array.from(rows),
      y,
      yBoot,
      bootstrap: yBoot ? options.bootstrap : 0,
      instanceCount,
    });
  }
  return {
    data: {
      matrix,
      models,
      view: { data: matrix.values, stride: nInst, rows: Int32Array.from(keptRows), cols: usable.length === nInst ? null : Int32Array.from(usable) },
      instances: usable.map((c) => matrix.instances[c]!),
      targets,
      incomplete: partial,
    },
    findings,
  };
}

/** Below this share of instances observed for every pool model, models that block the most leave. */
export const DEFAULT_MIN_COMPLETE_SHARE = 0.5;
/** The most of the pool that may leave for it. */
export const MAX_DROPPED_SHARE = 0.25;

/**
 * Models each missing a benchmark or two can leave no instance observed for every pool model
 * (a 50-model pool where each (model, benchmark) pair is missing 5% of the time has none), and
 * then nothing is selectable at all. When fewer than half the instances are complete, the model
 * whose gaps leave the most instances incomplete leaves the pool (ties: name order), one at a
 * time, until half (`minShare`) are complete or a quarter of the pool has left; each is
 * reported (`pace-model-dropped-incomplete`). A pool already half complete is never touched.
 * Mutates `keptRows`.
 */
function dropBlockingModels(matrix: ScoreMatrix, keptRows: number[], minShare: number, findings: Finding[]): void {
  const nInst = matrix.instances.length;
  if (nInst === 0 || keptRows.length === 0) return;
  const missingBy = new Int32Array(nInst);
  for (const r of keptRows) for (let c = 0; c < nInst; c++) if (!matrix.observed[r * nInst + c]) missingBy[c]!++;
  const complete = () => missingBy.reduce((n, v) => n + (v === 0 ? 1 : 0), 0);
  const maxDrop = Math.floor(MAX_DROPPED_SHARE * keptRows.length);
  let dropped = 0;
  while (complete() < minShare * nInst && dropped < maxDrop) {
    // The model whose leaving completes the most instances: those it alone lacks.
    let best = -1;
    let bestGain = 0;
    for (let k = 0; k < keptRows.length; k++) {
      const r = keptRows[k]!;
      let gain = 0;
      for (let c = 0; c < nInst; c++) if (!matrix.observed[r * nInst + c] && missingBy[c] === 1) gain++;
      // Until some instance is lacked by one model alone, the model lacking the most goes first.
      if (gain === 0) for (let c = 0; c < nInst; c++) if (!matrix.observed[r * nInst + c]) gain += 1 / (missingBy[c] as number) / nInst;
      if (gain > bestGain) {
        best = k;
        bestGain = gain;
      }
    }
    if (best < 0) break;
    const r = keptRows[best]!;
    let lacked = 0;
    for (let c = 0; c < nInst; c++) if (!matrix.observed[r * nInst + c]) (missingBy[c]!--, lacked++);
    keptRows.splice(best, 1);
    dropped++;
    findings.push(make('pace-model-dropped-incomplete', { record: r }, { model: (matrix.models[r] as { name: string }).name, lacked, instances: nInst, complete: complete(), minShare }));
  }
}

/** Per-instance source scores are fractions (accuracy, pass@1, exact match): one outside [0, 1] or not finite is a broken input. */
const MAX_BAD_SCORE_FINDINGS = 20;

/**
 * Source cells that are not finite or lie outside [0, 1] become unobserved (never used, never
 * zero-filled) with an error naming the model and the instance, so a broken file cannot flow
 * silently into the SVD. The caller's matrix is not mutated.
 */
function withoutBadScores(matrix: ScoreMatrix, findings: Finding[]): ScoreMatrix {
  const n = matrix.instances.length;
  let bad = 0;
  let observed: Uint8Array | null = null;
  for (let r = 0; r < matrix.models.length; r++)
    for (let c = 0; c < n; c++) {
      const i = r * n + c;
      if (!matrix.observed[i]) continue;
      const v = matrix.values[i] as number;
      if (Number.isFinite(v) && v >= 0 && v <= 1) continue;
      observed ??= Uint8Array.from(matrix.observed);
      observed[i] = 0;
      if (++bad <= MAX_BAD_SCORE_FINDINGS) {
        const inst = matrix.instances[c]!;
        findings.push(make('pace-source-score-invalid', { field: `${inst.key}` }, { model: (matrix.models[r] as { name: string }).name, instance: inst.key, task: inst.task, value: String(v) }));
      }
    }
  if (bad > MAX_BAD_SCORE_FINDINGS) findings.push(make('pace-source-score-invalid-more', {}, { count: bad - MAX_BAD_SCORE_FINDINGS }));
  return observed ? { ...matrix, observed } : matrix;
}

/**
 * A benchmark on which most pool models score 0 on every instance they have is almost surely a
 * broken block (PACE's gpqa files list every id twice and the first block is mostly zeros, so
 * `--duplicates first` keeps the zeros; some bfcl files list only failed ids). It is kept, and said.
 */
function degenerateTasks(matrix: ScoreMatrix, rows: number[]): Finding[] {
  const n = matrix.instances.length;
  const tasks = [...new Set(matrix.instances.map((i) => i.task))].sort(cmp);
  const taskIndex = new Map(tasks.map((t, i) => [t, i]));
  const taskOf = Int32Array.from(matrix.instances, (inst) => taskIndex.get(inst.task)!);
  const T = tasks.length;
  // Per task: models with any observed cell, and the names of those whose observed cells are all 0.
  const withData = new Int32Array(T);
  const zero: string[][] = tasks.map(() => []);
  const seen = new Int32Array(T);
  const nonZero = new Int32Array(T);
  // One pass along each model's row (the matrix is row-major), counting into its tasks.
  for (const r of rows) {
    seen.fill(0);
    nonZero.fill(0);
    const base = r * n;
    for (let c = 0; c < n; c++) {
      if (!matrix.observed[base + c]) continue;
      const t = taskOf[c] as number;
      seen[t]!++;
      if (matrix.values[base + c] !== 0) nonZero[t]!++;
    }
    for (let t = 0; t < T; t++) {
      if (!seen[t]) continue;
      withData[t]!++;
      if (nonZero[t] === 0) zero[t]!.push((matrix.models[r] as { name: string }).name);
    }
  }
  const out: Finding[] = [];
  tasks.forEach((task, t) => {
    const models = withData[t] as number;
    const names = zero[t]!;
    if (models >= 2 && names.length > models / 2) out.push(make('pace-task-mostly-zero', {}, { task, zero: names.length, models, names: names.join(', ') }));
  });
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
