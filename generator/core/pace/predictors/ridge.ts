import type { Baseline, BaselineContext } from './baseline-types.js';
import { poolGram as sharedPoolGram } from '../numerics/shared-gram.js';
import { cachedRidgeFold, predictKernelRidge } from '../numerics/kernel-ridge.js';

export function poolGram(ctx: BaselineContext): Float64Array {
  let g = ctx.cache.get('pool-gram') as Float64Array | undefined;
  if (!g) {
    g = sharedPoolGram(ctx.basis.data.view);
    ctx.cache.set('pool-gram', g);
  }
  return g;
}

/** Ridge on every selectable instance (no selection at all), penalty by inner leave-one-out. */
export const ridgeBaseline: Baseline = {
  name: 'ridge-all',
  notShippedBecause: 'needs every source instance of the checkpoint (check only runs the proxy items), and its weights can be negative (not monotone)',
  title: 'ridge on all instances',
  predict: (ctx) => {
    const gram = poolGram(ctx);
    const n = ctx.basis.data.models.length;
    return predictKernelRidge(cachedRidgeFold(ctx.cache, 'ridge-all', gram, n, ctx.basis.trainRows, ctx.basis.yTrain), gram, n, ctx.testRow);
  },
};
