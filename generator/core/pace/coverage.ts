/**
 * Leave-one-out residuals of one frozen configuration over a set of models, used twice: `fit`
 * turns them into the cross-validated skill and the conformal interval stored in the model file;
 * `evaluate` recomputes them inside every outer fold (training models only) to measure how often
 * the interval it would have issued covers the held-out model.
 */
import { fitTarget, predictPoolRow, prepareFold, type GlobalBasis } from './pipeline.js';
import { conformalInterval, intervalLevels, targetBounds } from './conformal.js';
import { percentileSorted } from './uncertainty.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from './types.js';

/** Goal A leave-one-out predictions and residuals (y − ŷ) over `idx` (indices into target.rows). */
export function looPredictions(data: PaceData, target: PreparedTarget, idx: Int32Array, config: PaceConfig, options: PaceOptions, shared: GlobalBasis | null): { predictions: Float64Array; residuals: Float64Array } {
  const predictions = new Float64Array(idx.length);
  const residuals = new Float64Array(idx.length);
  idx.forEach((held, t) => {
    const train = Int32Array.from(idx.filter((_, s) => s !== t));
    const basis = prepareFold(data, target, train, options, shared);
    const fit = fitTarget(basis, config, null);
    const p = predictPoolRow(basis, fit, target.rows[held] as number).value;
    predictions[t] = p;
    residuals[t] = (target.y[held] as number) - p;
  });
  return { predictions, residuals };
}

/** The label-noise interval of a prediction at `level`, from its bootstrap replicates. */
export function labelNoiseInterval(replicates: number[], level: number): [number, number] | null {
  if (replicates.length < 2) return null;
  const sorted = [...replicates].sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return [percentileSorted(sorted, tail), percentileSorted(sorted, 1 - tail)];
}

export interface CoverageTally {
  level: number;
  folds: number;
  covered: number;
  /** Folds where the inner residuals were too few to bound the interval (whole valid range). */
  unbounded: number;
  /** Mean interval width on the internal scale. */
  meanWidth: number;
}

export function newCoverage(): CoverageTally[] {
  return intervalLevels.map((level) => ({ level, folds: 0, covered: 0, unbounded: 0, meanWidth: 0 }));
}

/** Scores one outer fold: the interval built from the training models' own residuals, against the held-out truth. */
export function addCoverage(tallies: CoverageTally[], truth: number, point: number, innerResiduals: Float64Array, replicates: number[], scale: PreparedTarget['scale']): void {
  const abs = innerResiduals.map(Math.abs);
  for (const t of tallies) {
    const iv = conformalInterval(point, abs, t.level, targetBounds(scale), labelNoiseInterval(replicates, t.level));
    t.meanWidth = (t.meanWidth * t.folds + (iv.upper - iv.lower)) / (t.folds + 1);
    t.folds++;
    if (truth >= iv.lower && truth <= iv.upper) t.covered++;
    if (iv.unbounded) t.unbounded++;
  }
}
