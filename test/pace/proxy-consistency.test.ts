/** The proxy-consistency guard's arithmetic: the line, its leave-one-out residuals (numpy refits), and one checkpoint's reading. */
import { describe, expect, it } from 'vitest';
import { consistencyTolerance, leastSquaresLine, readConsistency, type ProxyConsistency } from '../../generator/core/pace/evaluation/proxy-consistency.js';
import { rangeNoiseZ } from '../../generator/core/pace/evaluation/range-noise.js';
import { runReference, skipPython } from './reference.js';

describe('proxy consistency', () => {
  it.skipIf(skipPython)('fits the line and each model\'s leave-one-out residual as numpy does by refitting without it', () => {
    // Unequal spacing and a point far from the mean, so a wrong leverage or a shifted index shows.
    const x = [0.12, 0.31, 0.33, 0.48, 0.52, 0.71, 0.95];
    const y = [0.2, 0.36, 0.41, 0.5, 0.61, 0.69, 0.99];
    const ours = leastSquaresLine(x, y);
    const numpy = runReference(
      `import json, sys
import numpy as np
x, y = (np.array(v) for v in json.load(sys.stdin))
b, a = np.polyfit(x, y, 1)
loo = []
for i in range(len(x)):
    keep = np.arange(len(x)) != i
    bi, ai = np.polyfit(x[keep], y[keep], 1)
    loo.append(float(y[i] - (ai + bi * x[i])))
print(json.dumps({"a": float(a), "b": float(b), "loo": loo}))`,
      [x, y],
    );
    expect(ours.intercept).toBeCloseTo(numpy.a, 12);
    expect(ours.slope).toBeCloseTo(numpy.b, 12);
    ours.looResiduals.forEach((r, i) => expect(r, `model ${i}`).toBeCloseTo(numpy.loo[i], 12));
  });

  it('flags a proxy mean above the line beyond the pool and the noise, never one below it, and reads only the yardstick', () => {
    const c: ProxyConsistency = { instances: Array.from({ length: 100 }, (_, i) => `y/${i}`), intercept: 0.05, slope: 0.9, threshold: 0.04 };
    const scores = (right: number, extra: Record<string, number> = {}) => new Map<string, number>([...c.instances.map((k, i) => [k, i < right ? 1 : 0] as [string, number]), ...Object.entries(extra)]);
    // Yardstick mean 0.3: the line expects 0.32.
    const ordinary = readConsistency(c, scores(30), 0.35, 40);
    expect(ordinary.checked).toBe(true);
    expect(ordinary.expected).toBeCloseTo(0.32, 12);
    const se = Math.sqrt((0.35 * 0.65) / 40 + 0.81 * ((0.3 * 0.7) / 100));
    expect(ordinary.standardError).toBeCloseTo(se, 12);
    expect(ordinary.inconsistent).toBe(false);
    // 0.32 + 0.2: beyond 1.25 × 0.04 and beyond 2 standard errors.
    const high = readConsistency(c, scores(30), 0.52, 40);
    expect(high.proxyMean! - high.expected!).toBeGreaterThan(Math.max(consistencyTolerance * c.threshold, rangeNoiseZ * high.standardError!));
    expect(high.inconsistent).toBe(true);
    // Beyond the pool's residuals but within the checkpoint's own noise: not flagged.
    const noisy = readConsistency(c, scores(30), 0.4, 10);
    expect(noisy.proxyMean! - noisy.expected!).toBeGreaterThan(consistencyTolerance * c.threshold);
    expect(noisy.inconsistent).toBe(false);
    // Far below the line: the prediction is lowered, not flattered.
    expect(readConsistency(c, scores(90), 0.1, 40).inconsistent).toBe(false);
    // Keys outside the yardstick do not count; under half of it observed, no check is made.
    const partial = new Map([...scores(30)].filter(([k]) => Number(k.slice(2)) < 49));
    partial.set('other/1', 1);
    expect(readConsistency(c, partial, 0.9, 40)).toEqual({ checked: false, observed: 49, total: 100, inconsistent: false });
  });
});
