import type { Coverage } from './harness/ingest.js';
import type { ScoreMatrix } from './matrix.js';

/** Observed cells per (model, task) straight from a matrix (any source). */
export function matrixCoverage(matrix: ScoreMatrix): Coverage {
  const tasks: string[] = [];
  const taskOf: number[] = [];
  const seen = new Map<string, number>();
  for (const inst of matrix.instances) {
    let t = seen.get(inst.task);
    if (t === undefined) {
      t = tasks.length;
      seen.set(inst.task, t);
      tasks.push(inst.task);
    }
    taskOf.push(t);
  }
  const totals = new Array<number>(tasks.length).fill(0);
  for (const t of taskOf) totals[t]!++;
  const cells: Coverage['cells'] = {};
  const width = matrix.instances.length;
  matrix.models.forEach((model, row) => {
    const counts = new Array<number>(tasks.length).fill(0);
    for (let j = 0; j < width; j++) if (matrix.observed[row * width + j]) counts[taskOf[j]!]!++;
    const byTask: Coverage['cells'][string] = {};
    counts.forEach((c, t) => {
      if (c > 0) byTask[tasks[t]!] = { observed: c, expected: totals[t]! };
    });
    cells[model.name] = byTask;
  });
  return { models: matrix.models.map((m) => m.name), tasks, cells };
}

/**
 * A models × tasks table of observed/instances counts. Every task is shown: wide inputs are
 * split into blocks of `maxTasks` columns, one under the other, each with the model column;
 * at most `maxModels` rows, with a line saying how many were left out.
 */
export function renderCoverage(matrix: ScoreMatrix, options: { maxModels?: number; maxTasks?: number } = {}): string {
  const cov = matrixCoverage(matrix);
  const maxModels = options.maxModels ?? 40;
  const perBlock = Math.max(1, options.maxTasks ?? 12);
  const models = cov.models.slice(0, maxModels);
  const totals = new Map<string, number>();
  for (const inst of matrix.instances) totals.set(inst.task, (totals.get(inst.task) ?? 0) + 1);
  const out = [`coverage: ${cov.models.length} model(s) × ${cov.tasks.length} task(s), ${matrix.instances.length} instance(s); ${countObserved(matrix)} of ${matrix.values.length} cells observed`];
  for (let start = 0; start < cov.tasks.length || start === 0; start += perBlock) {
    const tasks = cov.tasks.slice(start, start + perBlock);
    const header = ['model', ...tasks.map((_, i) => `[${start + i + 1}]`)];
    const rows = models.map((m) => [m, ...tasks.map((t) => {
      const c = cov.cells[m]?.[t];
      if (!c) return '-';
      return c.observed === totals.get(t) ? String(c.observed) : `${c.observed}/${totals.get(t)}`;
    })]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
    if (start > 0) out.push('');
    out.push(line(header), ...rows.map(line));
    if (cov.tasks.length === 0) break;
  }
  if (cov.models.length > models.length) out.push(`… ${cov.models.length - models.length} more model(s) (see --json)`);
  out.push(...cov.tasks.map((t, i) => `[${i + 1}] ${t} (${totals.get(t)} instances, metric ${matrix.instances.find((x) => x.task === t)?.metric})`));
  return out.join('\n');
}

export function countObserved(matrix: ScoreMatrix): number {
  let n = 0;
  for (let i = 0; i < matrix.observed.length; i++) n += matrix.observed[i]!;
  return n;
}
