import type { Baseline } from './types.js';
import { mean } from '../kernels.js';

/** Predicts the training models' mean: the bar any proxy must clear. */
export const meanBaseline: Baseline = {
  name: 'mean',
  title: 'training mean',
  predict: (ctx) => mean(ctx.basis.yTrain),
};
