import type { Baseline } from './baseline-types.js';
import { benchmarkMeans } from './benchmark-means.js';
import { lassoFit } from './lasso-fit.js';
import { perFold } from './fold-memo.js';

/**
 * Lasso on the per-benchmark means (one feature per source benchmark), α = 0.1·α_max of the
 * training fold as for `lasso-all`: the sparse counterpart of `benchmark-means`.
 */
export const benchmarkMeansLassoBaseline: Baseline = {
  name: 'benchmark-means-lasso',
  title: 'per-benchmark means + lasso (α = 0.1·α_max)',
  notShippedBecause: 'needs each benchmark’s mean over all its instances, and lasso weights can be negative (not monotone)',
  predict: (ctx) => {
    const { features, tasks } = benchmarkMeans(ctx);
    const p = tasks.length;
    const fit = perFold(ctx.basis, 'benchmark-means-lasso', () => {
      const rows = ctx.basis.trainRows;
      const n = rows.length;
      const x = new Float64Array(p * n);
      rows.forEach((r, i) => {
        for (let j = 0; j < p; j++) x[j * n + i] = features[r * p + j] as number;
      });
      return lassoFit(x, n, p, ctx.basis.yTrain, { ratio: 0.1 });
    });
    let pred = fit.intercept;
    for (let j = 0; j < p; j++) pred += (fit.weights[j] as number) * (features[ctx.testRow * p + j] as number);
    return pred;
  },
};
