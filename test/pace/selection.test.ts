/** Selection steps on hand-computed cases. */
import { describe, expect, it } from 'vitest';
import { mergeStrictBudget, roundHalfEven } from '../../generator/core/pace/selection/merge.js';
import { rankByScore, rankLocal } from '../../generator/core/pace/selection/select-local.js';
import { leverage, rankGlobal } from '../../generator/core/pace/selection/select-global.js';
import { ols1d, predictGoalA, type GoalAFit } from '../../generator/core/pace/predictors/goal-a.js';
import { addPair, pairAccuracy } from '../../generator/core/pace/evaluation/metrics.js';
import { skillMap } from '../../generator/core/pace/selection/skill-map.js';
import { proxySamples } from '../../generator/core/pace/selection/proxy-set.js';

const order = (xs: number[]) => Int32Array.from(xs);

describe('ranking', () => {
  it('ranks by |ρ| descending, ties by instance order, undefined ρ (constant column) not eligible', () => {
    const rho = Float64Array.from([0.2, -0.9, NaN, 0.9, 0.5, -0.2]);
    expect(Array.from(rankLocal(rho))).toEqual([1, 3, 4, 0, 5]);
  });
  it('leverage sums squared loadings over the first nc_d factors; global score = leverage·|ρ|', () => {
    // 3 instances × 2 factors.
    const v = Float64Array.from([0.6, 0.0, 0.0, 0.8, 0.8, 0.6]);
    expect(Array.from(leverage(v, 2, 1))).toEqual([0.36, 0, 0.64].map((x) => expect.closeTo(x, 12)));
    expect(Array.from(leverage(v, 2, 2))).toEqual([0.36, 0.64, 1].map((x) => expect.closeTo(x, 12)));
    // ρ = [1, 0.5, 0.3] → scores (nc_d=2) 0.36, 0.32, 0.3.
    expect(Array.from(rankGlobal(v, 2, 2, Float64Array.from([1, -0.5, 0.3])))).toEqual([0, 1, 2]);
    // nc_d beyond the available factors is capped.
    expect(Array.from(leverage(v, 2, 9))).toEqual(Array.from(leverage(v, 2, 2)));
  });
  it('rankByScore orders as the comparison sort does: score descending, ties by index, −0 as 0, non-finite scores dropped', () => {
    const reference = (scores: Float64Array) => {
      const idx: number[] = [];
      for (let i = 0; i < scores.length; i++) if (Number.isFinite(scores[i] as number)) idx.push(i);
      return idx.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
    };
    let state = 7;
    const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
    // Ties (rounded scores), negatives, −0 beside 0, tiny and huge magnitudes, NaN and ±Infinity.
    const scores = Float64Array.from({ length: 70_001 }, (_, i) =>
      i % 17 === 0 ? NaN : i % 13 === 0 ? 0.5 : i % 11 === 0 ? -0 : i % 9 === 0 ? 0 : i % 7 === 0 ? -next() : i % 5 === 0 ? next() * 1e-300 : i % 3 === 0 ? next() * 1e300 : Math.round(next() * 1000) / 1000,
    );
    scores[4] = Infinity;
    scores[8] = -Infinity;
    expect(Array.from(rankByScore(scores))).toEqual(reference(scores));
    expect(Array.from(rankByScore(Float64Array.from([1, NaN, 1, 2])))).toEqual([3, 0, 2]);
  });
});

describe('strict budget merge (joint_top_C)', () => {
  it('splits the budget with Python rounding (half to even)', () => {
    expect([roundHalfEven(2.5), roundHalfEven(3.5), roundHalfEven(12.5), roundHalfEven(2.4), roundHalfEven(2.6)]).toEqual([2, 4, 12, 2, 3]);
    const sel = mergeStrictBudget(order([0, 1, 2, 3, 4]), order([10, 11, 12, 13, 14]), 5, 0.5);
    // round(2.5) = 2 local, 3 global; no overlap.
    expect(Array.from(sel.local)).toEqual([0, 1]);
    expect(Array.from(sel.global)).toEqual([10, 11, 12]);
    expect(Array.from(sel.union)).toEqual([0, 1, 10, 11, 12]);
  });
  it('refills an overlapping union from both lists in q proportion until it has C distinct instances', () => {
    // C = 4, q = 0.5: local {1,2}, global {1,2} overlap completely → union 2; refill 2 more.
    const sel = mergeStrictBudget(order([1, 2, 3, 4, 5]), order([1, 2, 7, 8, 9]), 4, 0.5);
    expect(sel.union.length).toBe(4);
    // Alternation: local first (credit tie goes to local), then global.
    expect(Array.from(sel.local)).toEqual([1, 2, 3]);
    expect(Array.from(sel.global)).toEqual([1, 2, 7]);
    expect(Array.from(sel.union)).toEqual([1, 2, 3, 7]);
  });
  it('q = 1 selects only locally, q = 0 only globally', () => {
    const a = mergeStrictBudget(order([1, 2, 3]), order([4, 5, 6]), 3, 1);
    expect(Array.from(a.local)).toEqual([1, 2, 3]);
    expect(a.global.length).toBe(0);
    const b = mergeStrictBudget(order([1, 2, 3]), order([1, 5, 6]), 3, 0);
    expect(b.local.length).toBe(0);
    expect(Array.from(b.global)).toEqual([1, 5, 6]);
  });
  it('stops short when both rankings are exhausted', () => {
    const sel = mergeStrictBudget(order([1, 2]), order([2, 3]), 10, 0.5);
    expect(Array.from(sel.union)).toEqual([1, 2, 3]);
  });
});

describe('Goal A pieces', () => {
  it('1-D OLS with intercept on hand values', () => {
    // y = 2x + 1 exactly.
    expect(ols1d([0, 1, 2, 3], [1, 3, 5, 7])).toEqual({ intercept: 1, slope: 2 });
    // constant x: slope 0, intercept = mean y.
    expect(ols1d([1, 1, 1], [1, 2, 6])).toEqual({ intercept: 3, slope: 0 });
  });
  it('the range guard returns the pool mean outside [min − 2·range, max + 2·range]', () => {
    const fit: GoalAFit = { weights: [1], intercept: 0, slope: 1, yMin: 0.2, yMax: 0.4, yMean: 0.3, replicateIntercepts: [], replicateSlopes: [] };
    expect(predictGoalA(fit, [0.75])).toMatchObject({ value: 0.75, guarded: false });
    expect(predictGoalA(fit, [0.81])).toMatchObject({ value: 0.3, guarded: true });
    expect(predictGoalA(fit, [-0.21])).toMatchObject({ value: 0.3, guarded: true });
    expect(predictGoalA(fit, [NaN])).toMatchObject({ value: 0.3, guarded: true });
  });
});

describe('pairwise accuracy', () => {
  it('counts only pairs whose true scores differ; a zero margin is half right', () => {
    const t = { correct: 0, pairs: 0 };
    addPair(t, 0.1, 2); // right
    addPair(t, -0.1, 2); // wrong
    addPair(t, 0, 5); // ignored: tie in truth
    addPair(t, 0.3, 0); // half
    expect(t).toEqual({ correct: 1.5, pairs: 3 });
    expect(pairAccuracy(t)).toBe(0.5);
  });
});

describe('skill map and samples file', () => {
  it('shares of instances and of |weight| per source benchmark', () => {
    const map = skillMap([
      { task: 'b', weight: -3 },
      { task: 'a', weight: 1 },
      { task: 'b', weight: 0 },
      { task: 'a', weight: 4 },
    ]);
    expect(map).toEqual([
      { task: 'a', instances: 2, instanceShare: 0.5, weightShare: 5 / 8 },
      { task: 'b', instances: 2, instanceShare: 0.5, weightShare: 3 / 8 },
    ]);
  });
  it('samples.json has sorted, de-duplicated integer doc ids per task; non-numeric ids are reported', () => {
    const inst = (task: string, doc_id: string) => ({ key: `${task}/${doc_id}`, task, doc_id, metric: 'acc' });
    const { samples, nonNumeric } = proxySamples([inst('t2', '10'), inst('t1', '3'), inst('t2', '2'), inst('t2', '10'), inst('gpqa', 'rec_x')]);
    expect(samples).toEqual({ t1: [3], t2: [2, 10] });
    expect(Object.keys(samples)).toEqual(['t1', 't2']);
    expect(nonNumeric).toEqual({ count: 1, tasks: ['gpqa'] });
  });
});
