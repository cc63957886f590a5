/**
 * Recovery on data from a known generative model (multidimensional 2PL IRT): PACE must
 * recover target scores far better than the mean predictor, agree with the noise-free truth,
 * never leak the held-out model's target, and be byte-for-byte reproducible.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { syntheticPace, type SyntheticData } from '../../generator/core/pace/inputs/synthetic.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { runLoocv, nestedChoice, type LoocvReport } from '../../generator/core/pace/evaluation/loocv.js';
import { fitTarget, predictPoolRow, prepareFold } from '../../generator/core/pace/pipeline.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import { checkpointScores, predictPace } from '../../generator/core/pace/predict.js';
import { spearman } from '../../generator/core/pace/numerics/rank.js';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';
import type { ScoreMatrix, TargetTable } from '../../generator/core/logs/matrix.js';
import type { PaceConfig, PaceData } from '../../generator/core/pace/types.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';

const options = { bootstrap: 40, alpha: 0.1, seed: '7', svdScope: 'fold' as const };
const config: PaceConfig = { budget: 60, q: 0.5, m: 0.5, ncH: 3, ncD: 3 };
let syn: SyntheticData;
let data: PaceData;
let report: LoocvReport;

/** Drops the last model from the matrix and the targets (the "new checkpoint"). */
function withoutLast(s: SyntheticData): { matrix: ScoreMatrix; targets: TargetTable[]; heldOut: string } {
  const m = s.matrix;
  const n = m.models.length - 1;
  const S = m.instances.length;
  const heldOut = m.models[n]!.name;
  const targets = s.targets.map((t) => {
    const scores = { ...t.scores };
    delete scores[heldOut];
    const perInstance = { ...t.perInstance };
    delete perInstance[heldOut];
    return { ...t, scores, perInstance };
  });
  return { matrix: { ...m, models: m.models.slice(0, n), values: m.values.slice(0, n * S), observed: m.observed.slice(0, n * S) }, targets, heldOut };
}

beforeAll(async () => {
  await loadDense();
  syn = syntheticPace({ models: 18, instances: 1500, dims: 2, targets: 2, targetInstances: 300, seed: 'recovery' });
  data = prepareData(syn.matrix, syn.targets, { bootstrap: options.bootstrap, seed: options.seed }).data!;
  report = await runLoocv(data, { ...options, frozen: { 'agentic-0': config, 'agentic-1': config }, nested: null, baselines: ['mean'], budgetCurve: [] });
});

describe('recovery on synthetic IRT data', () => {
  it('LOOCV: PACE beats the mean predictor by a wide margin and ranks models like the truth', () => {
    for (const t of report.targets) {
      const pace = t.methods.find((m) => m.method === 'pace-frozen')!;
      const mean = t.methods.find((m) => m.method === 'mean')!;
      expect(pace.metrics.mae).toBeLessThan(0.6 * mean.metrics.mae);
      expect(pace.metrics.spearman).toBeGreaterThan(0.8);
      expect(pace.pairAccuracy).toBeGreaterThan(0.8);
      expect(pace.goalBPairAccuracy).toBeGreaterThan(0.75);
      // Against the noise-free expected scores of the generative model.
      const expected = syn.expected[t.target]!;
      expect(spearman(expected, pace.predictions as number[])).toBeGreaterThan(0.8);
    }
  });

  it('the held-out model’s target never enters its own fold (frozen and nested)', () => {
    const target = data.targets[0]!;
    const k = 3;
    const trainIdx = Int32Array.from({ length: target.rows.length - 1 }, (_, i) => (i < k ? i : i + 1));
    const grid = { budgets: [30], qs: [0.2, 0.8], ms: [0, 1], ncHs: [1, 2], ncDs: [1, 2] };
    const before = predictPoolRow(prepareFold(data, target, trainIdx, options, null, true), fitTarget(prepareFold(data, target, trainIdx, options, null, true), config, 0.1), target.rows[k]!);
    const chosenBefore = nestedChoice(data, target, trainIdx, { ...options, frozen: {}, nested: grid, baselines: [], budgetCurve: [] }, grid, null);
    // Corrupt the held-out model's target and its bootstrap replicates.
    const poisoned = { ...target, y: target.y.slice(), yBoot: target.yBoot!.slice() };
    poisoned.y[k] = 0.999;
    poisoned.yBoot.fill(0.999, k * target.bootstrap, (k + 1) * target.bootstrap);
    const basis = prepareFold(data, poisoned, trainIdx, options, null, true);
    const after = predictPoolRow(basis, fitTarget(basis, config, 0.1), target.rows[k]!);
    expect(after.value).toBe(before.value);
    expect(after.margins).toEqual(before.margins);
    expect(nestedChoice(data, poisoned, trainIdx, { ...options, frozen: {}, nested: grid, baselines: [], budgetCurve: [] }, grid, null)).toEqual(chosenBefore);
  });

  it('fit → predict on a new checkpoint reproduces its LOOCV fold exactly; the model file’s shipped form reproduces the prediction', async () => {
    const { matrix, targets, heldOut } = withoutLast(syn);
    const { model, findings } = await fitPace(matrix, targets, { ...options, configs: { 'agentic-0': config, 'agentic-1': config } });
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    const scores = checkpointScores(syn.matrix, heldOut)!;
    const { forecasts, findings: pf } = await predictPace(model!, heldOut, scores);
    // Whether the prediction can be vouched for is flagged separately (test/check, test/pace/honesty).
    expect(pf.filter((f) => !['pace-prediction-unproven', 'pace-prediction-out-of-range', 'pace-prediction-below-range', 'pace-simpler-predictor-better'].includes(f.code))).toEqual([]);
    for (const f of forecasts) {
      const truth = syn.targets.find((t) => t.target === f.target)!.scores[heldOut]!;
      const t = model!.targets.find((x) => x.target === f.target)!;
      // The held-out model is the last pool row, so its LOOCV fold trains on exactly the fitted models.
      const fold = report.targets.find((x) => x.target === f.target)!;
      expect(fold.models[fold.models.length - 1]).toBe(heldOut);
      const loocv = fold.methods.find((m) => m.method === `shipped-${t.shipped.kind}`)!.predictions[fold.models.length - 1]!;
      expect(f.predicted).toBeCloseTo(loocv * 100, 8);
      // PACE's own point for the same fold is what the shipped form was made monotone from.
      const pacePoint = fold.methods.find((m) => m.method === 'pace-frozen')!.predictions[fold.models.length - 1]!;
      const linearPace = t.linear.intercept + t.linear.weights.reduce((s, w) => s + w.weight * scores.get(w.key)!, 0);
      expect(linearPace).toBeCloseTo(pacePoint, 9);
      expect(Number.isFinite(truth)).toBe(true);
      expect(f.interval![0]).toBeLessThanOrEqual(f.predicted + 1e-9);
      expect(f.interval![1]).toBeGreaterThanOrEqual(f.predicted - 1e-9);
      expect(f.winProbabilities).toHaveLength(t.trainingModels.length);
      // Shipped form: intercept + Σ weight·score (every weight > 0), clipped, equals the prediction.
      expect(f.guarded).toBe(false);
      expect(t.shipped.weights.every((w) => w.weight > 0)).toBe(true);
      const shipped = t.shipped.intercept + t.shipped.weights.reduce((s, w) => s + w.weight * scores.get(w.key)!, 0);
      expect(Math.min(1, Math.max(0, shipped)) * t.displayFactor).toBeCloseTo(f.predicted, 9);
      // Goal B: the checkpoint is more likely to beat weaker training models than stronger ones.
      const byScore = [...f.winProbabilities].sort((a, b) => a.score - b.score);
      expect(byScore[0]!.probability).toBeGreaterThan(byScore[byScore.length - 1]!.probability);
    }
  });

  it('a checkpoint missing some proxy instances still gets a prediction, with a warning; missing everything is an error', async () => {
    const { matrix, targets, heldOut } = withoutLast(syn);
    const { model } = await fitPace(matrix, targets, { ...options, configs: { 'agentic-0': config, 'agentic-1': config } });
    const scores = checkpointScores(syn.matrix, heldOut)!;
    const full = await predictPace(model!, heldOut, scores);
    const partial = new Map(scores);
    model!.proxy.forEach((inst, i) => {
      if (i % 5 === 0) partial.delete(inst.key);
    });
    const res = await predictPace(model!, heldOut, partial);
    expect(res.findings.map((f) => f.code).filter((c) => c.startsWith('pace-proxy'))).toEqual(['pace-proxy-missing-instances', 'pace-proxy-missing-instances']);
    res.forecasts.forEach((f, i) => {
      expect(f.missingInstances).toBeGreaterThan(0);
      expect(Math.abs(f.predicted - full.forecasts[i]!.predicted)).toBeLessThan(10);
    });
    const none = await predictPace(model!, heldOut, new Map());
    expect(none.forecasts).toEqual([]);
    expect(none.findings.map((f) => f.code)).toEqual(['pace-proxy-too-few-instances', 'pace-proxy-too-few-instances']);
  });

  it('is deterministic: same inputs and seed → identical model file; another seed changes the bootstrap', async () => {
    const small = syntheticPace({ models: 10, instances: 400, seed: 'det' });
    const cfg = { 'agentic-0': { ...config, budget: 30 }, 'agentic-1': { ...config, budget: 30 } };
    const a = await fitPace(small.matrix, small.targets, { ...options, configs: cfg });
    const b = await fitPace(small.matrix, small.targets, { ...options, configs: cfg });
    const c = await fitPace(small.matrix, small.targets, { ...options, seed: 'other', configs: cfg });
    expect(stableStringify(a.model)).toBe(stableStringify(b.model));
    expect(stableStringify(a.model)).not.toBe(stableStringify(c.model));
    expect(a.model!.data.matrixSha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('cross-validation faces what a checkpoint faces', () => {
  it('a held-out model’s missing cells are its own: refit without it + predict equals its fold, and its gaps do not shrink the fold’s universe', async () => {
    const { crossValidatedPredictions } = await import('../../generator/core/pace/evaluation/coverage.js');
    const { foldView } = await import('../../generator/core/pace/evaluation/fold-view.js');
    const s = syntheticPace({ models: 14, instances: 400, dims: 2, targets: 1, targetInstances: 100, seed: 'gaps' });
    const S = s.matrix.instances.length;
    const last = s.matrix.models.length - 1;
    // The last model (it sorts last by name) misses every 7th instance, 14% of its cells.
    const observed = Uint8Array.from(s.matrix.observed);
    for (let c = 0; c < S; c += 7) observed[last * S + c] = 0;
    const gappy: SyntheticData = { ...s, matrix: { ...s.matrix, observed } };
    const opts = { ...options, bootstrap: 0 };
    const d = prepareData(gappy.matrix, gappy.targets, { bootstrap: 0, seed: opts.seed }).data!;
    const target = d.targets[0]!;
    const k = target.rows.length - 1;
    expect(d.models[target.rows[k]!]).toBe(s.matrix.models[last]!.name);
    // The fit's universe lost the held-out model's gaps; its fold's universe has them back.
    const fold = foldView(d, [target.rows[k]!]);
    expect(d.instances.length).toBeLessThan(S);
    expect(fold.instances.length).toBe(d.instances.length + Math.ceil(S / 7));
    const cv = await crossValidatedPredictions(d, target, Int32Array.from(target.rows.keys()), config, opts, null);
    // Refit on the other models, then predict the held-out model from the cells it has.
    const { matrix, targets, heldOut } = withoutLast(gappy);
    const { model } = await fitPace(matrix, targets, { ...opts, configs: { [target.name]: config } });
    const scores = checkpointScores(gappy.matrix, heldOut)!;
    expect(scores.size).toBeLessThan(S);
    const proxies = new Set([...(model!.targets[0]!.local?.instances ?? []), ...(model!.targets[0]!.global?.instances ?? [])]);
    expect([...proxies].some((key) => !scores.has(key)), 'the held-out model misses some proxy instances').toBe(true);
    const { forecasts } = await predictPace(model!, heldOut, scores);
    // The fold's prediction by the form the refit ships.
    expect(forecasts[0]!.predicted / model!.targets[0]!.displayFactor).toBeCloseTo(cv.byKind[model!.targets[0]!.shipped.kind][k]!, 10);
  }, 120_000);
});
