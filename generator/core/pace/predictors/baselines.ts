import type { Baseline } from './baseline-types.js';
import { meanBaseline } from './mean.js';
import { ridgeBaseline } from './ridge.js';
import { lassoBaseline } from './lasso.js';
import { correlationBaseline } from './correlation.js';
import { randomSubsetBaseline } from './random-subset.js';
import { benchmarkMeansBaseline } from './benchmark-means.js';

export type BaselineName = 'mean' | 'ridge-all' | 'lasso-all' | 'correlation-top-c' | 'random-c' | 'benchmark-means';

/** Every baseline, in report order. */
export const baselines = {
  mean: meanBaseline,
  'ridge-all': ridgeBaseline,
  'lasso-all': lassoBaseline,
  'correlation-top-c': correlationBaseline,
  'random-c': randomSubsetBaseline,
  'benchmark-means': benchmarkMeansBaseline,
} satisfies Record<BaselineName, Baseline>;

export const baselineOrder = Object.keys(baselines) as BaselineName[];
export type { Baseline, BaselineContext } from './baseline-types.js';
