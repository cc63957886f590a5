/**
 * Kernel ridge from a few features (numerics/kernel-ridge.ts, RidgeFeatures): the eigenpairs of
 * the centred kernel found from the width × width matrix give the fit and the predictions of the
 * full n × n eigendecomposition (which test/pace/numerics.test.ts checks against scikit-learn's
 * Ridge), to rounding, with the same penalty chosen by leave-one-out.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { gramRows, range } from '../../generator/core/pace/numerics/kernels.js';
import { fitKernelRidge, predictKernelRidge } from '../../generator/core/pace/numerics/kernel-ridge.js';

describe('kernel ridge from few features', () => {
  it('equals the full eigendecomposition: penalty, fitted predictions and held-out predictions', () => {
    const rng = new Rng('ridge-features');
    for (const [nAll, width] of [
      [60, 5],
      [41, 1],
      [90, 30],
    ] as const) {
      // Features of unequal scales, one column a copy of another (a zero eigenvalue the route must drop).
      const data = Float64Array.from({ length: nAll * width }, (_, i) => rng.normal() * (1 + (i % width)));
      if (width > 2) for (let r = 0; r < nAll; r++) data[r * width + 2] = data[r * width] as number;
      const gram = gramRows({ data, stride: width, rows: range(nAll), cols: null });
      // Training rows out of order, a few rows held out.
      const train = Int32Array.from(range(nAll).filter((r) => r % 7 !== 3)).reverse();
      const y = Float64Array.from(train, (r) => (data[r * width] as number) * 0.3 + rng.normal());
      const full = fitKernelRidge(gram, nAll, train, y);
      const few = fitKernelRidge(gram, nAll, train, y, undefined, { data, width });
      expect(full.rank).toBe(train.length);
      expect(few.rank).toBe(width > 2 ? width - 1 : width);
      // The same grid point; the scale (the kernel's trace) is summed another way, so the last bits may differ.
      expect(Math.abs(few.alpha - full.alpha)).toBeLessThan(1e-12 * full.alpha);
      for (let r = 0; r < nAll; r++) {
        const a = predictKernelRidge(full, gram, nAll, r);
        const b = predictKernelRidge(few, gram, nAll, r);
        expect(Math.abs(a - b)).toBeLessThan(1e-9 * Math.max(1, Math.abs(a)));
      }
    }
  });

  it('keeps the full route when the features are not few (at least half the training rows)', () => {
    const nAll = 20;
    const width = 12;
    const rng = new Rng('ridge-features/wide');
    const data = Float64Array.from({ length: nAll * width }, () => rng.normal());
    const gram = gramRows({ data, stride: width, rows: range(nAll), cols: null });
    const train = range(nAll - 1);
    const y = Float64Array.from(train, () => rng.normal());
    const fold = fitKernelRidge(gram, nAll, train, y, undefined, { data, width });
    expect(fold.rank).toBe(train.length);
    expect(Array.from(fold.vectors)).toEqual(Array.from(fitKernelRidge(gram, nAll, train, y).vectors));
  });
});
