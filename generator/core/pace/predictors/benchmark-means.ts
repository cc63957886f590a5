import type { Baseline, BaselineContext } from './baseline-types.js';
import { gramRows, viewCols } from '../numerics/kernels.js';
import { predictKernelRidge, type RidgeFold } from '../numerics/kernel-ridge.js';
import type { FoldBasis } from '../pipeline.js';
import { perFold } from './fold-memo.js';
import { ridgeOffThread } from './ridge-thread.js';

/** Per-model mean score on each source benchmark (task): pool rows × tasks. */
export function benchmarkMeans(ctx: Pick<BaselineContext, 'basis' | 'cache'>): { features: Float64Array; tasks: string[] } {
  const cached = ctx.cache.get('benchmark-means') as { features: Float64Array; tasks: string[] } | undefined;
  if (cached) return cached;
  const { view, instances } = ctx.basis.data;
  const tasks = [...new Set(instances.map((i) => i.task))].sort();
  const taskOf = Int32Array.from(instances, (i) => tasks.indexOf(i.task));
  const counts = new Float64Array(tasks.length);
  for (const t of taskOf) counts[t] = (counts[t] as number) + 1;
  const n = view.rows.length;
  const features = new Float64Array(n * tasks.length);
  for (let r = 0; r < n; r++) {
    const base = (view.rows[r] as number) * view.stride;
    for (let c = 0; c < viewCols(view); c++) {
      const t = taskOf[c] as number;
      features[r * tasks.length + t] = (features[r * tasks.length + t] as number) + (view.data[base + (view.cols ? (view.cols[c] as number) : c)] as number) / (counts[t] as number);
    }
  }
  const out = { features, tasks };
  ctx.cache.set('benchmark-means', out);
  return out;
}

/** The Gram matrix of the per-benchmark means over all pool rows (per-target cache). */
function benchmarkGram(ctx: Pick<BaselineContext, 'basis' | 'cache'>): Float64Array {
  let g = ctx.cache.get('benchmark-gram') as Float64Array | undefined;
  if (!g) {
    const { features, tasks } = benchmarkMeans(ctx);
    const n = ctx.basis.data.models.length;
    g = gramRows({ data: features, stride: tasks.length, rows: Int32Array.from({ length: n }, (_, i) => i), cols: null });
    ctx.cache.set('benchmark-gram', g);
  }
  return g;
}

/**
 * Starts the fold's `benchmark-means` fit (once per fold basis; on the ridge worker where there is
 * one) and returns it: `evaluate` calls this as soon as a fold's basis is ready.
 */
export function startBenchmarkMeans(basis: FoldBasis, cache: Map<string, unknown>): Promise<RidgeFold> {
  const { features, tasks } = benchmarkMeans({ basis, cache });
  // One feature per benchmark: the fit decomposes tasks × tasks, not the fold's n × n kernel.
  return perFold(basis, 'benchmark-means', () => ridgeOffThread(benchmarkGram({ basis, cache }), basis.data.models.length, basis.trainRows, basis.yTrain, { data: features, width: tasks.length }));
}

/** Benchmark-level means (one feature per source benchmark) → ridge, penalty by inner leave-one-out. */
export const benchmarkMeansBaseline: Baseline = {
  name: 'benchmark-means',
  notShippedBecause: 'needs each benchmark’s mean over all its instances, and ridge weights can be negative (not monotone); the shippable form "benchmark-accuracy" is the non-negative fit on the proxy items',
  title: 'per-benchmark means + ridge',
  predict: async (ctx) => predictKernelRidge(await startBenchmarkMeans(ctx.basis, ctx.cache), benchmarkGram(ctx), ctx.basis.data.models.length, ctx.testRow),
};
