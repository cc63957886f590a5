/**
 * The working-set lasso (predictors/lasso-active.ts) that `lasso-all` fits with: the optimum of
 * the same objective as cyclic descent and scikit-learn, the same weights bit for bit from a cold
 * or a warm start, and cyclic descent itself wherever the optimum is not shown to be unique.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { codeColumnMajor, lassoFitCoded, type CodedColumns, type LassoFit } from '../../generator/core/pace/predictors/lasso-fit.js';
import { lassoAllFit, lassoWorkingSet } from '../../generator/core/pace/predictors/lasso-active.js';
import { runReference, skipPython } from './reference.js';

const rng = new Rng('lasso-active');

/** 0/1 scores of `n` models on `p` items from a 2-dimensional IRT model, and a target linear in the abilities. */
function population(n: number, p: number): { x: number[][]; y: number[] } {
  const ability = Array.from({ length: n }, () => [rng.normal(), rng.normal()]);
  const items = Array.from({ length: p }, () => [rng.normal(), 1.5 * rng.next(), 1.5 * rng.next()]);
  const x = ability.map(([a, b]) => items.map(([d, u, v]) => (rng.next() < 1 / (1 + Math.exp(-(u! * a! + v! * b! - d!))) ? 1 : 0)));
  const y = ability.map(([a, b]) => 0.5 + 0.1 * a! + 0.05 * b! + 0.01 * rng.normal());
  return { x, y };
}

function columns(x: number[][], rows: number[]): CodedColumns {
  const n = rows.length;
  const p = x[0]!.length;
  const colMajor = new Float64Array(n * p);
  rows.forEach((r, i) => x[r]!.forEach((v, j) => (colMajor[j * n + i] = v)));
  return codeColumnMajor(colMajor, n, p);
}

const predict = (fit: LassoFit, row: number[]) => row.reduce((s, v, j) => s + v * (fit.weights[j] as number), fit.intercept);

/** Largest violation of the lasso's optimality conditions, relative to α. */
function kkt(fit: LassoFit, x: number[][], y: number[], rows: number[]): number {
  const n = rows.length;
  const r = rows.map((i) => (y[i] as number) - predict(fit, x[i]!));
  let worst = 0;
  for (let j = 0; j < x[0]!.length; j++) {
    const mean = rows.reduce((s, i) => s + x[i]![j]!, 0) / n;
    const g = rows.reduce((s, i, t) => s + (x[i]![j]! - mean) * (r[t] as number), 0) / n;
    const w = fit.weights[j] as number;
    worst = Math.max(worst, w === 0 ? Math.abs(g) / fit.alpha - 1 : Math.abs(g - fit.alpha * Math.sign(w)) / fit.alpha);
  }
  return worst;
}

// 150 models (an inner fold trains on 135 of them, its outer fold on all 150), 1,200 items.
const big = population(150, 1200);
const all = Array.from({ length: 150 }, (_, i) => i);
const inner = all.filter((i) => i % 10 !== 3);
// 14 models and 300 items: far more items at the threshold than independent directions.
const small = population(14, 300);
const smallRows = Array.from({ length: 14 }, (_, i) => i);

describe('working-set lasso', () => {
  let ref: { w: number[]; b: number };
  let cold: LassoFit;
  const y = Float64Array.from(inner, (i) => big.y[i] as number);

  beforeAll(() => {
    cold = lassoWorkingSet(columns(big.x, inner), y, { ratio: 0.1 });
    if (skipPython) return;
    ref = runReference(
      `import json, sys, numpy as np
from sklearn.linear_model import Lasso
d = json.load(sys.stdin)
m = Lasso(alpha=d['alpha'], tol=1e-14, max_iter=1000000).fit(np.array(d['x'], dtype=float), np.array(d['y']))
print(json.dumps({'w': m.coef_.tolist(), 'b': float(m.intercept_)}))`,
      { x: inner.map((i) => big.x[i]), y: Array.from(y), alpha: cold.alpha },
    );
  });

  it('reaches the optimum, shown unique, with α = 0.1·α_max as cyclic descent resolves it', () => {
    expect(cold.unique).toBe(true);
    expect(kkt(cold, big.x, big.y, inner)).toBeLessThan(1e-9);
    expect(cold.alpha).toBe(lassoFitCoded(columns(big.x, inner), y, { ratio: 0.1 }, 1e-8, 1).alpha);
    expect(cold.weights.some((w) => w !== 0)).toBe(true);
  });

  it.skipIf(skipPython)('equals scikit-learn’s Lasso', () => {
    cold.weights.forEach((w, j) => expect(Math.abs(w - (ref.w[j] as number)), `weight ${j}`).toBeLessThan(1e-8));
    expect(Math.abs(cold.intercept - ref.b)).toBeLessThan(1e-8);
  });

  it('equals cyclic descent run to convergence (within its tolerance)', () => {
    const cd = lassoFitCoded(columns(big.x, inner), y, { ratio: 0.1 }, 1e-12, 200000);
    expect(cd.iterations).toBeLessThan(200000);
    for (const i of all.filter((k) => !inner.includes(k))) expect(Math.abs(predict(cd, big.x[i]!) - predict(cold, big.x[i]!))).toBeLessThan(1e-8);
  });

  it('gives the cold start’s weights bit for bit from a warm start', () => {
    // The outer fold's fit (all 150 models), as evaluate starts an inner fold's lasso.
    const outer = lassoWorkingSet(columns(big.x, all), Float64Array.from(big.y), { ratio: 0.1 });
    const warm = lassoWorkingSet(columns(big.x, inner), y, { ratio: 0.1 }, 1e-12, 100000, outer.weights);
    expect(Array.from(warm.weights)).toEqual(Array.from(cold.weights));
    expect(warm.intercept).toBe(cold.intercept);
    // A start on the right support with no column outside it over the threshold is still no solution.
    for (const scale of [0.5, 1.01]) {
      const near = lassoWorkingSet(columns(big.x, inner), y, { ratio: 0.1 }, 1e-12, 100000, cold.weights.map((w) => w * scale));
      expect(Array.from(near.weights), `start at ${scale} × the optimum`).toEqual(Array.from(cold.weights));
    }
    const viaAll = lassoAllFit(columns(big.x, inner), y, { ratio: 0.1 }, 1e-8, 2000, outer.weights);
    expect(Array.from(viaAll.weights)).toEqual(Array.from(cold.weights));
    expect(viaAll.intercept).toBe(cold.intercept);
  });

  it('leaves an optimum it cannot show unique to cyclic descent from zero, bit for bit', () => {
    const ys = Float64Array.from(small.y);
    const ws = lassoWorkingSet(columns(small.x, smallRows), ys, { ratio: 0.1 });
    expect(ws.unique).toBe(false);
    const cd = lassoFitCoded(columns(small.x, smallRows), ys, { ratio: 0.1 }, 1e-8, 2000);
    const fit = lassoAllFit(columns(small.x, smallRows), ys, { ratio: 0.1 }, 1e-8, 2000, null);
    expect(Array.from(fit.weights)).toEqual(Array.from(cd.weights));
    expect(fit.intercept).toBe(cd.intercept);
  });
});
