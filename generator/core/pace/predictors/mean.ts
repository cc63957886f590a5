import type { Baseline } from './baseline-types.js';
import { mean } from '../numerics/kernels.js';

/** Predicts the training models' mean: the bar any proxy must clear. */
export const meanBaseline: Baseline = {
  name: 'mean',
  notShippedBecause: 'a constant: the yardstick every skill verdict is measured against; it says nothing about the checkpoint',
  title: 'training mean',
  predict: (ctx) => mean(ctx.basis.yTrain),
};
