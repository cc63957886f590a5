import type { Baseline, BaselineContext } from './baseline-types.js';
import { poolGram as sharedPoolGram } from '../numerics/shared-gram.js';
import { predictKernelRidge, type RidgeFold } from '../numerics/kernel-ridge.js';
import type { FoldBasis } from '../pipeline.js';
import { perFold } from './fold-memo.js';
import { ridgeOffThread } from './ridge-thread.js';

export function poolGram(ctx: Pick<BaselineContext, 'basis' | 'cache'>): Float64Array {
  let g = ctx.cache.get('pool-gram') as Float64Array | undefined;
  if (!g) {
    g = sharedPoolGram(ctx.basis.data.view);
    ctx.cache.set('pool-gram', g);
  }
  return g;
}

/**
 * Starts the fold's `ridge-all` fit (once per fold basis; on the ridge worker where there is one)
 * and returns it: `evaluate` calls this as soon as a fold's basis is ready.
 */
export function startRidgeAll(basis: FoldBasis, cache: Map<string, unknown>): Promise<RidgeFold> {
  return perFold(basis, 'ridge-all', () => ridgeOffThread(poolGram({ basis, cache }), basis.data.models.length, basis.trainRows, basis.yTrain));
}

/** Ridge on every selectable instance (no selection at all), penalty by inner leave-one-out. */
export const ridgeBaseline: Baseline = {
  name: 'ridge-all',
  notShippedBecause: 'needs every source instance of the checkpoint (check only runs the proxy items), and its weights can be negative (not monotone)',
  title: 'ridge on all instances',
  predict: async (ctx) => predictKernelRidge(await startRidgeAll(ctx.basis, ctx.cache), poolGram(ctx), ctx.basis.data.models.length, ctx.testRow),
};
