import type { Baseline, BaselineContext } from './types.js';
import { gramRows } from '../kernels.js';
import { kernelRidge } from './kernel-ridge.js';

export function poolGram(ctx: BaselineContext): Float64Array {
  let g = ctx.cache.get('pool-gram') as Float64Array | undefined;
  if (!g) {
    g = gramRows(ctx.basis.data.view);
    ctx.cache.set('pool-gram', g);
  }
  return g;
}

/** Ridge on every selectable instance (no selection at all), penalty by inner leave-one-out. */
export const ridgeBaseline: Baseline = {
  name: 'ridge-all',
  title: 'ridge on all instances',
  predict: (ctx) =>
    kernelRidge(poolGram(ctx), ctx.basis.data.models.length, ctx.basis.trainRows, ctx.testRow, ctx.basis.yTrain).prediction,
};
