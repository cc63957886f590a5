import type { Baseline } from './baseline-types.js';
import { viewCols } from '../numerics/kernels.js';
import { ols1d } from './goal-a.js';

/**
 * 1-D least squares (intercept and unconstrained slope, scikit-learn `LinearRegression`) on
 * each model's mean score over every selectable source instance: the plainest "general
 * ability" predictor. The shippable counterpart over the proxy items is the `accuracy` form.
 */
export const overallMeanOlsBaseline: Baseline = {
  name: 'overall-mean-ols',
  title: '1-D OLS on the mean over all source instances',
  notShippedBecause: 'needs every source instance of the checkpoint (check only runs the proxy items; the shippable form "accuracy" is the same fit on the proxy items)',
  predict: (ctx) => {
    const { view } = ctx.basis.data;
    let means = ctx.cache.get('overall-means') as Float64Array | undefined;
    if (!means) {
      const p = viewCols(view);
      means = Float64Array.from(view.rows, (_, r) => {
        const base = (view.rows[r] as number) * view.stride;
        let s = 0;
        for (let j = 0; j < p; j++) s += view.data[base + (view.cols ? (view.cols[j] as number) : j)] as number;
        return s / p;
      });
      ctx.cache.set('overall-means', means);
    }
    const x = Float64Array.from(ctx.basis.trainRows, (r) => means![r] as number);
    const { intercept, slope } = ols1d(x, ctx.basis.yTrain);
    return intercept + slope * (means[ctx.testRow] as number);
  },
};
