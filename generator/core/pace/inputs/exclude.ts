/**
 * `--exclude-benchmark NAME`: drop a source benchmark from the matrix before anything is fitted.
 * NAME is a task (`gpqa/diamond`) or a task prefix up to a `/` (`gpqa`), so a benchmark read from
 * a folder keeps its task names instead of being re-read folder by folder.
 */
import type { ScoreMatrix } from '../../logs/matrix.js';
import { didYouMean } from '../../kernel/suggest.js';
import { matrixStorage } from '../../kernel/shared-memory.js';

export function benchmarkMatches(task: string, name: string): boolean {
  return task === name || task.startsWith(`${name}/`);
}

/** Returns the matrix without the named benchmarks, or the names that match no task. */
export function excludeBenchmarks(matrix: ScoreMatrix, names: string[]): { matrix: ScoreMatrix; unknown: string[]; removed: number } {
  const tasks = [...new Set(matrix.instances.map((i) => i.task))].sort();
  const unknown = names.filter((n) => !tasks.some((t) => benchmarkMatches(t, n))).map((n) => `${n}${didYouMean(n, tasks)}`);
  const keep: number[] = [];
  matrix.instances.forEach((inst, c) => {
    if (!names.some((n) => benchmarkMatches(inst.task, n))) keep.push(c);
  });
  if (keep.length === matrix.instances.length) return { matrix, unknown, removed: 0 };
  const n = matrix.instances.length;
  const m = keep.length;
  // Shared memory when large, as the matrix it replaces (kernel/shared-memory.ts).
  const values = matrixStorage(matrix.models.length * m);
  const observed = new Uint8Array(matrix.models.length * m);
  for (let r = 0; r < matrix.models.length; r++)
    keep.forEach((c, j) => {
      values[r * m + j] = matrix.values[r * n + c] as number;
      observed[r * m + j] = matrix.observed[r * n + c] as number;
    });
  return {
    matrix: { ...matrix, instances: keep.map((c) => matrix.instances[c]!), values, observed, provenance: { ...matrix.provenance, excludedBenchmarks: [...names].sort() } },
    unknown,
    removed: n - m,
  };
}
