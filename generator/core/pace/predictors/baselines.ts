import type { Baseline } from './baseline-types.js';
import { meanBaseline } from './mean.js';
import { ridgeBaseline } from './ridge.js';
import { lassoBaseline } from './lasso.js';
import { correlationBaseline } from './correlation.js';
import { randomSubsetBaseline } from './random-subset.js';
import { benchmarkMeansBaseline } from './benchmark-means.js';
import { knnModelsBaseline } from './knn-models.js';
import { benchmarkMeansLassoBaseline } from './benchmark-means-lasso.js';
import { overallMeanOlsBaseline } from './overall-mean-ols.js';

export type BaselineName = 'mean' | 'overall-mean-ols' | 'benchmark-means' | 'benchmark-means-lasso' | 'ridge-all' | 'lasso-all' | 'knn-models' | 'correlation-top-c' | 'random-c';

/**
 * Every baseline, in report order (simplest first). None is shipped (each says why in
 * `notShippedBecause`): they need more of the checkpoint than its proxy items, or are not
 * monotone. They are the yardsticks the shipped predictor is judged against.
 */
export const baselines = {
  mean: meanBaseline,
  'overall-mean-ols': overallMeanOlsBaseline,
  'benchmark-means': benchmarkMeansBaseline,
  'benchmark-means-lasso': benchmarkMeansLassoBaseline,
  'ridge-all': ridgeBaseline,
  'lasso-all': lassoBaseline,
  'knn-models': knnModelsBaseline,
  'correlation-top-c': correlationBaseline,
  'random-c': randomSubsetBaseline,
} satisfies Record<BaselineName, Baseline>;

export const baselineOrder = Object.keys(baselines) as BaselineName[];
export type { Baseline, BaselineContext } from './baseline-types.js';
