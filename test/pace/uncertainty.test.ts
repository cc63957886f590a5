/**
 * The interval maths behind `evaluate`'s paired comparisons and the conformal prediction
 * intervals, checked against an independent numpy / scipy / scikit-learn implementation on
 * inputs with ties, tiny samples and levels the residuals cannot bound.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { conformalHalfWidth, conformalInterval, residualsNeeded } from '../../generator/core/pace/evaluation/conformal.js';
import { absoluteErrorDifferences, bootstrapIndices, looMeanPredictions, maeVerdict, pairedComparison, pointPairAccuracy } from '../../generator/core/pace/evaluation/uncertainty.js';
import { minimumModelsForSkill, signFlipTest } from '../../generator/core/pace/evaluation/sign-flip.js';
import { runReference, skipPython } from './reference.js';

const rng = new Rng('uncertainty-test');
const draw = (n: number, scale = 1) => Array.from({ length: n }, () => Math.round(rng.next() * 20 * scale) / 20);

const CONFORMAL = `
import json, sys, math
import numpy as np
inp = json.load(sys.stdin)
out = []
for case in inp:
    r = np.sort(np.abs(np.array(case['residuals'], dtype=float)))
    n = len(r)
    k = math.ceil(case['level'] * (n + 1) - 1e-12)
    h = float(r[k - 1]) if 1 <= k <= n else None
    lo, hi = case['bounds']
    if h is None:
        lower, upper = lo, hi
    else:
        lower, upper = max(lo, case['point'] - h), min(hi, case['point'] + h)
    if case['label'] is not None:
        lower, upper = max(lo, min(lower, case['label'][0])), min(hi, max(upper, case['label'][1]))
    out.append({'h': h, 'lower': lower, 'upper': upper})
print(json.dumps(out))
`;

const PAIRED = `
import json, sys
import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import r2_score
inp = json.load(sys.stdin)
def pair_acc(t, p):
    c = 0.0; n = 0
    for i in range(len(t)):
        for j in range(len(t)):
            if i == j or t[i] == t[j]: continue
            n += 1
            m = p[i] - t[j]
            c += 0.5 if m == 0 else (1.0 if np.sign(m) == np.sign(t[i] - t[j]) else 0.0)
    return c / n if n else float('nan')
def metrics(t, p, base):
    t = np.asarray(t); p = np.asarray(p)
    sp = 0.0 if base else (spearmanr(t, p)[0] if np.ptp(t) > 0 and np.ptp(p) > 0 else float('nan'))
    r2 = r2_score(t, p) if np.ptp(t) > 0 else float('nan')
    return {'mae': float(np.mean(np.abs(t - p))), 'spearman': float(sp), 'r2': float(r2), 'pairAccuracy': pair_acc(t, p)}
out = []
for case in inp:
    t = np.array(case['truth']); p = np.array(case['pred']); b = np.array(case['base'])
    full = metrics(t, p, False); fb = metrics(t, b, True)
    res = {}
    per = [(metrics(t[idx], p[idx], False), metrics(t[idx], b[idx], True)) for idx in case['resamples']]
    for k in ['mae', 'spearman', 'r2', 'pairAccuracy']:
        reps = []
        for mp, mb in per:
            d = mp[k] - mb[k]
            if np.isfinite(d): reps.append(d)
        ok = len(reps) >= len(case['resamples']) / 2 and len(reps) > 1
        iv = [float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5))] if ok else [None, None]
        res[k] = {'difference': full[k] - fb[k], 'interval': iv, 'replicates': len(reps)}
    out.append(res)
print(json.dumps(out))
`;

describe('conformal intervals', () => {
  it('need ⌈(1−α)(n+1)⌉ ≤ n residuals: 4 for 80%, 19 for 95%', () => {
    expect(residualsNeeded(0.8)).toBe(4);
    expect(residualsNeeded(0.95)).toBe(19);
    expect(conformalHalfWidth([0.1, 0.2, 0.3], 0.8)).toBe(Infinity);
    expect(conformalHalfWidth([0.1, 0.2, 0.3, 0.4], 0.8)).toBe(0.4);
  });

  it.skipIf(skipPython)('match numpy: half-width, clipping to the valid range and widening to the label-noise interval', () => {
    const cases = [4, 5, 12, 13, 18, 19, 40].flatMap((n) =>
      [0.5, 0.8, 0.9, 0.95].map((level) => {
        const residuals = draw(n).map((x, i) => (i % 2 ? -x : x) / 3);
        const point = rng.next();
        const label = n % 2 ? [point - 0.05 * rng.next(), point + 0.3 * rng.next()] : null;
        return { residuals, level, point, bounds: [0, 1] as [number, number], label: label as [number, number] | null };
      }),
    );
    const ref = runReference(CONFORMAL, cases);
    cases.forEach((c, i) => {
      const h = conformalHalfWidth(c.residuals.map(Math.abs), c.level);
      expect(h === Infinity ? null : h).toEqual(ref[i].h);
      const iv = conformalInterval(c.point, c.residuals.map(Math.abs), c.level, c.bounds, c.label);
      expect(iv.lower).toBeCloseTo(ref[i].lower, 12);
      expect(iv.upper).toBeCloseTo(ref[i].upper, 12);
      expect(iv.unbounded).toBe(ref[i].h === null);
    });
  });
});

describe('paired comparison with the mean predictor', () => {
  it('the leave-one-out mean is the mean of the other models', () => {
    expect(looMeanPredictions([1, 2, 6])).toEqual([4, 3.5, 1.5]);
  });

  it('pair accuracy of a constant prediction orders every pair whose other model lies across it', () => {
    // truth 0, 1, 2 predicted as 1 everywhere; ordered pairs (i, j): (0,1) margin 0 → ½, (0,2) ✓,
    // (1,0) ✓, (1,2) ✓, (2,0) ✓, (2,1) margin 0 → ½: 5 of 6, with no information at all.
    expect(pointPairAccuracy([0, 1, 2], [1, 1, 1])).toBeCloseTo(5 / 6, 12);
  });

  it.skipIf(skipPython)('differences and percentile intervals match numpy / scipy / scikit-learn on the same resamples', () => {
    const cases = [6, 13, 17].map((n) => {
      const truth = draw(n);
      const pred = truth.map((y) => y + (rng.next() - 0.5) * 0.4);
      const base = looMeanPredictions(truth);
      const resamples = bootstrapIndices(n, 120, rng.fork(`n${n}`));
      return { truth, pred, base, resamples: resamples.map((r) => Array.from(r)) };
    });
    const ref = runReference(PAIRED, cases);
    cases.forEach((c, i) => {
      const got = pairedComparison(c.truth, c.pred, c.base, c.resamples.map((r) => Int32Array.from(r)));
      for (const k of ['mae', 'spearman', 'r2', 'pairAccuracy'] as const) {
        expect(got.metrics[k].difference).toBeCloseTo(ref[i][k].difference, 9);
        expect(got.metrics[k].replicates).toBe(ref[i][k].replicates);
        const [lo, hi] = got.metrics[k].interval;
        expect(Number.isNaN(lo) ? null : lo).toBeCloseTo(ref[i][k].interval[0] ?? NaN, 9);
        expect(Number.isNaN(hi) ? null : hi).toBeCloseTo(ref[i][k].interval[1] ?? NaN, 9);
      }
      // The verdict is the sign-flip test's, not the bootstrap interval's (sign-flip test below).
      expect(got.test.pTwoSided).toBeCloseTo(signFlipTest(absoluteErrorDifferences(c.truth, c.pred, c.base)).pTwoSided, 15);
      expect(got.verdict).toBe(c.truth.length < minimumModelsForSkill ? 'too-few-models' : got.test.pTwoSided >= 0.05 ? 'no-demonstrated-difference' : got.test.meanDifference < 0 ? 'better' : 'worse');
    });
  });
});

const SIGN_FLIP = `
import json, sys
import numpy as np
from scipy.stats import permutation_test
out = []
for d in json.load(sys.stdin):
    x = np.array(d, dtype=float)
    res = {}
    # Every alternative up to 17 models; from 20 the two-sided p the verdict uses (scipy's exact
    # enumeration of 2^20 sign patterns costs about 10 s per alternative).
    for alt in ('less', 'greater', 'two-sided') if len(x) <= 17 else ('two-sided',):
        # Exact up to 20 models (as aptpace); above that scipy's own Monte Carlo, seeded.
        n_resamples = np.inf if len(x) <= 20 else 200000
        r = permutation_test((x,), np.sum, permutation_type='samples', alternative=alt, n_resamples=n_resamples, batch=1 << 15, random_state=1)
        res[alt] = float(r.pvalue)
    out.append(res)
print(json.dumps(out))
`;

describe('sign-flip test of paired absolute-error differences', () => {
  it.skipIf(skipPython)('exact p-values equal scipy.stats.permutation_test (sign flips) on ties, zeros and both signs; above 20 models, a fixed Monte Carlo stream agrees within its error', () => {
    const cases = [
      [0.1, -0.2, 0.3],
      [-0.05, -0.1, 0.02, -0.3, -0.01, 0, -0.07, 0.04, -0.2, -0.11],
      [0.1, 0.1, -0.1, 0.2, -0.2, 0.3, 0, 0, -0.3, 0.05, -0.05, 0.1, -0.4],
      draw(17).map((x, i) => (i % 3 === 0 ? x : -x) / 4),
      draw(20).map((x, i) => (i % 4 === 0 ? x : -x) / 5),
      draw(26).map((x, i) => (i % 3 === 0 ? x : -x) / 5),
    ];
    const ref = runReference(SIGN_FLIP, cases);
    cases.forEach((d, i) => {
      const got = signFlipTest(d);
      const tolerance = got.exact ? 1e-12 : 0.01;
      expect(got.exact).toBe(d.length <= 20);
      if (d.length <= 17) {
        expect(Math.abs(got.pLess - ref[i].less), `less ${i}`).toBeLessThanOrEqual(tolerance);
        expect(Math.abs(got.pGreater - ref[i].greater), `greater ${i}`).toBeLessThanOrEqual(tolerance);
      }
      expect(Math.abs(got.pTwoSided - ref[i]['two-sided']), `two-sided ${i}`).toBeLessThanOrEqual(tolerance);
    });
  }, 300_000);

  it('does not depend on any seed: the same differences give the same p and verdict every time', () => {
    const d = Array.from({ length: 30 }, (_, i) => ((i * 37) % 11) / 50 - 0.08);
    const a = signFlipTest(d);
    expect(a.exact).toBe(false);
    expect(signFlipTest(d)).toEqual(a);
    expect(maeVerdict(a)).toBe(maeVerdict(signFlipTest([...d])));
  });

  it('needs at least 10 models before any better/worse verdict, however large the difference', () => {
    const nine = Array.from({ length: 9 }, () => -0.5);
    expect(signFlipTest(nine).pTwoSided).toBeLessThan(0.01);
    expect(maeVerdict(signFlipTest(nine))).toBe('too-few-models');
    expect(maeVerdict(signFlipTest([...nine, -0.5]))).toBe('better');
    expect(maeVerdict(signFlipTest([...nine, -0.5].map((x) => -x)))).toBe('worse');
    expect(maeVerdict(signFlipTest([-0.1, 0.1, -0.2, 0.2, -0.1, 0.1, 0.05, -0.05, 0.3, -0.3]))).toBe('no-demonstrated-difference');
  });
});
