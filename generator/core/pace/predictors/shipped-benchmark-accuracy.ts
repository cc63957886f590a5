import type { ShippedPredictor } from './shipped-family.js';
import { formFromWeights, viewCell, type ShippedFormInput } from './shipped-form.js';
import { nonNegativeLeastSquares } from '../numerics/nnls.js';

/**
 * The checkpoint's accuracy on its proxy items of each source benchmark, combined by
 * non-negative least squares with an intercept: "per-benchmark means" computed from what `check`
 * has (the proxy logs), monotone because every benchmark weight is ≥ 0. An unobserved proxy item
 * takes the checkpoint's own mean over the benchmark's other proxy items (monotone.ts), which is
 * exactly the benchmark mean over the observed ones.
 */
export const shippedBenchmarkAccuracy: ShippedPredictor = {
  title: 'per-benchmark proxy accuracies, non-negative least squares',
  build: (input) => {
    const { tasks, colsOf } = proxyTasks(input);
    const n = input.trainRows.length;
    const p = tasks.length;
    // Column-major features: x[j*n + i] = training model i's mean over benchmark j's proxy items.
    const x = new Float64Array(p * n);
    colsOf.forEach((cols, j) => {
      input.trainRows.forEach((r, i) => {
        let s = 0;
        for (const c of cols) s += viewCell(input.view, r, c);
        x[j * n + i] = s / cols.length;
      });
    });
    const fit = nonNegativeLeastSquares(x, n, p, Float64Array.from(input.yTrain));
    const weights = new Map<number, number>();
    colsOf.forEach((cols, j) => {
      for (const c of cols) weights.set(c, (fit.weights[j] as number) / cols.length);
    });
    return formFromWeights(input, fit.intercept, weights);
  },
};

function proxyTasks(input: ShippedFormInput): { tasks: string[]; colsOf: number[][] } {
  const byTask = new Map<string, number[]>();
  for (const c of input.linear.cols) {
    const t = input.taskOf(c);
    byTask.set(t, [...(byTask.get(t) ?? []), c]);
  }
  const tasks = [...byTask.keys()].sort();
  return { tasks, colsOf: tasks.map((t) => byTask.get(t)!) };
}
