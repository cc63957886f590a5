import type { Baseline } from './baseline-types.js';
import { mean } from '../numerics/kernels.js';

/** Predicts the training models' mean: the bar any proxy must clear. */
export const meanBaseline: Baseline = {
  name: 'mean',
  title: 'training mean',
  predict: (ctx) => mean(ctx.basis.yTrain),
};
