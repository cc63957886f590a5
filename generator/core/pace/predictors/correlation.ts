import type { Baseline } from './baseline-types.js';
import { ols1d } from './goal-a.js';

/**
 * Correlation-only selection: the C instances with the largest |ρ| on the training models,
 * summarised as their sign-aligned mean score and mapped to the target by 1-D OLS. No SVD,
 * no leverage, no bootstrap: what PACE adds over "pick the most correlated items".
 */
export const correlationBaseline: Baseline = {
  name: 'correlation-top-c',
  notShippedBecause: 'items correlated negatively with the target enter with a negative weight (not monotone)',
  title: 'top-C |Spearman| instances, sign-aligned mean + OLS',
  predict: (ctx) => {
    const { basis } = ctx;
    const view = basis.data.view;
    const chosen = basis.localOrder.subarray(0, ctx.budget);
    const score = (poolRow: number) => {
      const base = (view.rows[poolRow] as number) * view.stride;
      let s = 0;
      for (const c of chosen) s += Math.sign(basis.rho[c] as number) * (view.data[base + (view.cols ? (view.cols[c] as number) : c)] as number);
      return chosen.length ? s / chosen.length : 0;
    };
    const x = Float64Array.from(basis.trainRows, score);
    const { intercept, slope } = ols1d(x, basis.yTrain);
    return intercept + slope * score(ctx.testRow);
  },
};
