import type { Baseline } from './baseline-types.js';
import { poolGram } from './ridge.js';

/** Neighbours averaged (the kNN-3; fewer when the fold has fewer training models). */
export const knnNeighbours = 3;

/**
 * k nearest training models by Euclidean distance over every selectable instance, their target
 * scores averaged (scikit-learn `KNeighborsRegressor(n_neighbors=3)`); distances come from the
 * pool Gram matrix the ridge baseline already caches. Equal distances keep the training order,
 * as scikit-learn's stable sort does.
 */
export const knnModelsBaseline: Baseline = {
  name: 'knn-models',
  title: `mean target of the ${knnNeighbours} nearest training models (all instances)`,
  notShippedBecause: 'needs every source instance of the checkpoint, and is not monotone (a better checkpoint can land nearer weaker models)',
  predict: (ctx) => {
    const gram = poolGram(ctx);
    const n = ctx.basis.data.models.length;
    const t = ctx.testRow;
    const { trainRows, yTrain } = ctx.basis;
    const dist = Array.from(trainRows, (r, i) => ({ i, d: (gram[t * n + t] as number) + (gram[r * n + r] as number) - 2 * (gram[t * n + r] as number) }));
    dist.sort((a, b) => a.d - b.d || a.i - b.i);
    const k = Math.min(knnNeighbours, dist.length);
    let s = 0;
    for (let j = 0; j < k; j++) s += yTrain[dist[j]!.i] as number;
    return s / k;
  },
};
