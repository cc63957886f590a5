/**
 * The adversary's gradient-boosted trees (audit/boosted-trees.ts) against scikit-learn's
 * HistGradientBoostingClassifier with the same settings. On integer features with at most 16
 * values both bin every value on its own, so the trees, and the log-odds, must agree.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { DEFAULT_BOOST, fitBoosted, predictBoosted } from '../../generator/core/questions/audit/boosted-trees.js';
import { fitLogistic, scoreRow } from '../../generator/core/questions/audit/ranker.js';
import { hasPython, inCi, python, repoRoot } from '../helpers/env.js';

/** Rows of 5 integer features in 0..15; the label depends on an interaction (x0 high and x1 low) and on x2, with noise. */
function data(n: number, seed: string) {
  const rng = new Rng(seed);
  const x = Array.from({ length: n }, () => Array.from({ length: 5 }, () => rng.int(16)));
  const y = x.map((r) => {
    const logit = (r[0]! > 9 && r[1]! < 6 ? 2.5 : -1) + 0.15 * (r[2]! - 7.5);
    return rng.next() < 1 / (1 + Math.exp(-logit)) ? 1 : 0;
  });
  return { x, y };
}

describe('boosted trees', () => {
  it('learn an interaction a linear score cannot, and separate held-out rows', () => {
    const train = data(800, 'train');
    const test = data(800, 'test');
    const model = fitBoosted(train.x, train.y);
    // AUC on held-out rows: the share of (positive, negative) pairs ranked the right way.
    const auc = (scores: number[]) => {
      const pos = scores.filter((_, i) => test.y[i] === 1);
      const neg = scores.filter((_, i) => test.y[i] === 0);
      let right = 0;
      for (const p of pos) for (const q of neg) right += p > q ? 1 : p === q ? 0.5 : 0;
      return right / (pos.length * neg.length);
    };
    const linear = fitLogistic(train.x, train.y, 1);
    const trees = auc(test.x.map((r) => predictBoosted(model, r)));
    expect(trees).toBeGreaterThan(0.7);
    expect(trees).toBeGreaterThan(auc(test.x.map((r) => scoreRow(linear, r))) + 0.03);
    expect(fitBoosted(train.x, train.y)).toEqual(model);
  });

  it.skipIf(!hasPython && !inCi)('agree with scikit-learn HistGradientBoostingClassifier on the same settings', () => {
    const train = data(600, 'sk-train');
    const test = data(200, 'sk-test');
    const ours = test.x.map((r) => predictBoosted(fitBoosted(train.x, train.y, DEFAULT_BOOST), r));
    const res = spawnSync(python, [path.join(repoRoot, 'test/audit/boosted_trees_sklearn.py')], { input: JSON.stringify({ ...train, test: test.x }), encoding: 'utf8', timeout: 120_000 });
    expect(res.status, res.stderr).toBe(0);
    const theirs = JSON.parse(res.stdout) as number[];
    const worst = Math.max(...ours.map((v, i) => Math.abs(v - theirs[i]!)));
    expect(worst).toBeLessThan(1e-6);
  });
});
