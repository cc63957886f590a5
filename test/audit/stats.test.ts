import { describe, expect, it } from 'vitest';
import { hasPython, inCi } from '../helpers/env.js';
import { runPython } from './python.js';
import {
  chiSquareGoodnessOfFit,
  chiSquareSf,
  lowerTail,
  normalQuantile,
  poissonBinomialPmf,
  upperTail,
  wilsonInterval,
} from '../../generator/core/questions/audit/stats.js';

// The audit's statistics, checked against scipy/numpy in the same run.
describe.skipIf(!hasPython && !inCi)('audit statistics vs scipy', () => {
  it('Wilson interval matches scipy binomtest(...).proportion_ci(method="wilson")', () => {
    const cases = [
      [0, 10], [1, 10], [5, 10], [10, 10], [12, 48], [37, 48], [3, 400], [250, 1000],
    ] as const;
    const expected = runPython<number[][]>(
      `import json,sys
from scipy.stats import binomtest
out=[]
for k,n in json.load(sys.stdin):
    ci=binomtest(k,n).proportion_ci(confidence_level=0.95, method='wilson')
    out.append([ci.low, ci.high])
print(json.dumps(out))`,
      cases,
    );
    cases.forEach(([k, n], i) => {
      const [low, high] = wilsonInterval(k, n);
      expect(low).toBeCloseTo(expected[i]![0]!, 9);
      expect(high).toBeCloseTo(expected[i]![1]!, 9);
    });
  });

  it('normal quantile matches scipy.stats.norm.ppf', () => {
    const ps = [1e-6, 0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999];
    const expected = runPython<number[]>(
      `import json,sys
from scipy.stats import norm
print(json.dumps([float(norm.ppf(p)) for p in json.load(sys.stdin)]))`,
      ps,
    );
    // Acklam's approximation promises a relative error below 1.15e-9.
    ps.forEach((p, i) => expect(Math.abs(normalQuantile(p) - expected[i]!)).toBeLessThanOrEqual(1.2e-9 * Math.max(1, Math.abs(expected[i]!))));
  });

  it('binomial tails with a constant chance match scipy binomtest one-sided p-values', () => {
    const cases: Array<[number, number, number]> = [
      [12, 48, 0.25], [20, 48, 0.25], [5, 48, 0.25], [0, 10, 0.25], [10, 10, 0.25], [40, 100, 1 / 3], [70, 200, 1 / 6],
    ];
    const expected = runPython<Array<[number, number]>>(
      `import json,sys
from scipy.stats import binomtest
print(json.dumps([[binomtest(k,n,p,alternative='greater').pvalue, binomtest(k,n,p,alternative='less').pvalue] for k,n,p in json.load(sys.stdin)]))`,
      cases,
    );
    cases.forEach(([k, n, p], i) => {
      const probabilities = new Array<number>(n).fill(p);
      expect(upperTail(probabilities, k)).toBeCloseTo(expected[i]![0], 10);
      expect(lowerTail(probabilities, k)).toBeCloseTo(expected[i]![1], 10);
    });
  });

  it('Poisson-binomial pmf with mixed choice counts matches numpy convolution', () => {
    const probabilities = [...new Array(7).fill(1 / 4), ...new Array(5).fill(1 / 7), ...new Array(3).fill(1 / 2), 1 / 6];
    const expected = runPython<number[]>(
      `import json,sys
import numpy as np
pmf=np.array([1.0])
for p in json.load(sys.stdin):
    pmf=np.convolve(pmf,[1-p,p])
print(json.dumps(pmf.tolist()))`,
      probabilities,
    );
    const pmf = Array.from(poissonBinomialPmf(probabilities));
    expect(pmf).toHaveLength(expected.length);
    pmf.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 14));
  });

  it('chi-square survival and goodness of fit match scipy', () => {
    const sfCases: Array<[number, number]> = [[0.5, 1], [3, 3], [7.81, 3], [120, 3], [11.07, 5], [0.01, 6], [40, 25]];
    const fitCases = [
      { observed: [12, 12, 12, 12], expected: [12, 12, 12, 12] },
      { observed: [20, 10, 9, 9], expected: [12, 12, 12, 12] },
      { observed: [40, 0, 0, 0], expected: [10, 10, 10, 10] },
      { observed: [30, 25, 20, 15, 10], expected: [20, 20, 20, 20, 20] },
    ];
    const expected = runPython<{ sf: number[]; fit: Array<[number, number]> }>(
      `import json,sys
from scipy.stats import chi2, chisquare
d=json.load(sys.stdin)
print(json.dumps({'sf':[float(chi2.sf(x,k)) for x,k in d['sf']],'fit':[[float(r.statistic),float(r.pvalue)] for r in (chisquare(c['observed'],c['expected']) for c in d['fit'])]}))`,
      { sf: sfCases, fit: fitCases },
    );
    sfCases.forEach(([x, k], i) => {
      const want = expected.sf[i]!;
      expect(Math.abs(chiSquareSf(x, k) - want)).toBeLessThan(1e-12 + want * 1e-9);
    });
    fitCases.forEach((c, i) => {
      const got = chiSquareGoodnessOfFit(c.observed, c.expected);
      expect(got.statistic).toBeCloseTo(expected.fit[i]![0], 10);
      expect(Math.abs(got.pValue - expected.fit[i]![1])).toBeLessThan(1e-12 + expected.fit[i]![1] * 1e-9);
    });
  });
});
