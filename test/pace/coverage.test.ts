/**
 * Interval coverage for every row of `evaluate`: each candidate's interval is conformal from that
 * candidate's own cross-validated residuals over the outer fold's training models. The fold
 * corruption checks below move the held-out models' target scores (and their label-noise
 * bootstrap) far away: every row's interval for those models must stay bit-identical, while the
 * same corruption of a training model must move it (so the check can see a leak).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { runLoocv, type LoocvOptions, type TargetReport } from '../../generator/core/pace/evaluation/loocv.js';
import { renderLoocvTable } from '../../generator/core/pace/evaluation/report.js';
import { foldMembers, planFolds, type FoldProtocol } from '../../generator/core/pace/evaluation/folds.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';
import type { Grid } from '../../generator/core/pace/pipeline.js';
import type { PaceData, PreparedTarget } from '../../generator/core/pace/types.js';

const grid: Grid = { budgets: [30], qs: [0.5], ms: [0, 1], ncHs: [1, 2], ncDs: [2] };
const every = ['mean', 'overall-mean-ols', 'benchmark-means', 'benchmark-means-lasso', 'ridge-all', 'lasso-all', 'knn-models', 'correlation-top-c', 'random-c'] as const;
const base: LoocvOptions = { bootstrap: 20, alpha: 0.1, seed: '3', svdScope: 'fold', frozen: {}, nested: grid, baselines: [...every], budgetCurve: [] };
let data: PaceData;

beforeAll(async () => {
  await loadDense();
  const syn = syntheticPace({ models: 14, instances: 300, tasks: 3, dims: 2, targets: 1, targetInstances: 60, seed: 'coverage' });
  data = prepareData(syn.matrix, syn.targets, { bootstrap: 20, seed: '3' }).data!;
});

/** `data` with the target scores (and bootstrap rows) of the models `ks` moved to the far end of the scale. */
function corrupt(d: PaceData, ks: number[]): PaceData {
  const t = d.targets[0]!;
  const y = t.y.slice();
  const yBoot = t.yBoot ? t.yBoot.slice() : null;
  for (const k of ks) {
    y[k] = (y[k] as number) < 0.5 ? 0.99 : 0.01;
    if (yBoot) yBoot.fill(y[k] as number, k * t.bootstrap, (k + 1) * t.bootstrap);
  }
  const target: PreparedTarget = { ...t, y, yBoot };
  return { ...d, targets: [target] };
}

const intervalsAt = (t: TargetReport, ks: number[]) => Object.fromEntries(t.methods.map((m) => [m.method, ks.map((k) => m.intervals?.[k] ?? null)]));

describe('every row reports its interval coverage', () => {
  it('shipped, shipped-tuned, each form, PACE frozen and nested and every baseline: coverage at 80% and 95% over every fold, in the JSON and in the table', async () => {
    const report = await runLoocv(data, base);
    const t = report.targets[0]!;
    const n = t.models.length;
    expect(t.methods.map((m) => m.method)).toEqual(['shipped', 'shipped-tuned', 'shipped-accuracy', 'shipped-benchmark-accuracy', 'shipped-weighted', 'shipped-ensemble', 'pace-frozen', 'pace-nested', ...every]);
    for (const m of t.methods) {
      expect(m.coverage?.map((c) => [c.level, c.folds]), m.method).toEqual([
        [0.8, n],
        [0.95, n],
      ]);
      expect(m.intervals?.every((iv, k) => iv !== null && iv[0] <= (m.predictions[k] as number) && (m.predictions[k] as number) <= iv[1]), m.method).toBe(true);
    }
    // The shipped and nested rows carry the same tallies as the target-level fields.
    expect(t.methods.find((m) => m.method === 'shipped')!.coverage).toEqual(t.coverage);
    expect(t.methods.find((m) => m.method === 'pace-nested')!.coverage).toEqual(t.nestedCoverage);
    const md = renderLoocvTable(report);
    expect(md).toContain('| 80% interval covers | 95% interval covers |');
    for (const m of t.methods) {
      const c = m.coverage![0]!;
      expect(md).toMatch(new RegExp(`\\| ${m.method} \\|[^\\n]*\\| ${c.covered}/${n} \\(${Math.round((100 * c.covered) / n)}%\\)`));
    }
  }, 300_000);
});

describe('fold corruption: a held-out model’s score never enters its own interval', () => {
  it('leave-one-out: every row’s interval for the held-out model is unchanged when its target moves; moving a training model’s target does move it', async () => {
    const opts = { ...base, maxFolds: 1 };
    const before = (await runLoocv(data, opts)).targets[0]!;
    const held = (await runLoocv(corrupt(data, [0]), opts)).targets[0]!;
    expect(intervalsAt(held, [0])).toEqual(intervalsAt(before, [0]));
    expect(held.methods.map((m) => m.predictions[0])).toEqual(before.methods.map((m) => m.predictions[0]));
    // The corruption is real: the held-out truth moved out of every interval.
    for (const m of held.methods) expect(m.coverage![0]!.covered, m.method).toBe(0);
    // And the check can see a leak: a training model's residual does enter fold 0's intervals.
    const training = (await runLoocv(corrupt(data, [1]), opts)).targets[0]!;
    const moved = held.methods.filter((m) => JSON.stringify(intervalsAt(training, [0])[m.method]) !== JSON.stringify(intervalsAt(before, [0])[m.method]));
    expect(moved.length).toBeGreaterThan(before.methods.length / 2);
  }, 300_000);

  it('K-fold (outer and inner): every held-out model of the fold keeps its interval in every row', async () => {
    const protocol: FoldProtocol = { leaveOneOutUpTo: 4, folds: 3 };
    const opts = { ...base, foldProtocol: protocol, maxFolds: 1 };
    const t = data.targets[0]!;
    const ks = foldMembers(planFolds(Array.from(t.rows, (r) => data.models[r] as string), 'outer', protocol))[0]!;
    expect(ks.length).toBeGreaterThan(1);
    const before = (await runLoocv(data, opts)).targets[0]!;
    expect(before.protocol.inner.kind).toBe('k-fold');
    const after = (await runLoocv(corrupt(data, ks), opts)).targets[0]!;
    expect(intervalsAt(after, ks)).toEqual(intervalsAt(before, ks));
    for (const m of before.methods) expect(m.coverage![0]!.folds, m.method).toBe(ks.length);
  }, 300_000);
});
