/**
 * No leak from outside a fold's training models. In every LOOCV fold, every training-side
 * quantity — Spearman relevance, the global SVD, the selection, the local SVD basis and its σ
 * scaling, the training models' coordinates, Goal A and Goal B fits, and the nested search's
 * choice — must be a function of the training models' rows only. The test overwrites, with
 * arbitrary values, the held-out model's source row and target and every row of the matrix
 * that is outside the pool, and requires all of those quantities to stay bit-identical.
 *
 * Run on the real shared PACE data (pool = 13 of 19 source models, so pool row r ≠ matrix row r)
 * and on a synthetic matrix whose pool is a permuted subset of its rows, with zero-filled
 * unobserved models outside the pool and a target that covers only part of the pool.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { Rng } from '../../generator/core/kernel/rng.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadPaceInputs } from '../../generator/core/pace/inputs/inputs.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { parseConfigs } from '../../generator/core/pace/settings/config.js';
import { nestedChoice, nestedSearch, runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { foldMembers, planFolds } from '../../generator/core/pace/evaluation/folds.js';
import { fitTarget, prepareFold, type Grid, type PartFit } from '../../generator/core/pace/pipeline.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import type { ScoreMatrix, TargetTable } from '../../generator/core/logs/matrix.js';
import type { PaceConfig, PaceData, PreparedTarget } from '../../generator/core/pace/types.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { loadDense } from '../../generator/core/pace/numerics/dense.js';
import { shippedForms } from '../../generator/core/pace/predictors/shipped-family.js';
import { crossValidatedPredictions } from '../../generator/core/pace/evaluation/coverage.js';
import { baselineOrder, baselines } from '../../generator/core/pace/predictors/baselines.js';

const options = { bootstrap: 20, alpha: 0.1, seed: '5', svdScope: 'fold' as const };
const grid: Grid = { budgets: [40], qs: [0.2, 0.8], ms: [0.5], ncHs: [1, 3], ncDs: [2] };

function part(p: PartFit | null) {
  if (!p) return null;
  const e = p.embedding;
  return { cols: Array.from(e.cols), k: e.k, basis: Array.from(e.basis), proj: Array.from(e.proj), trainU: Array.from(p.trainU), goalA: p.goalA, goalB: p.goalB };
}

/** Everything a fold computes before it looks at the held-out model. */
function trainingSide(data: PaceData, target: PreparedTarget, k: number, config: PaceConfig) {
  const trainIdx = Int32Array.from({ length: target.rows.length - 1 }, (_, i) => (i < k ? i : i + 1));
  const basis = prepareFold(data, target, trainIdx, options, null, true);
  const fit = fitTarget(basis, config, options.alpha);
  return {
    rho: Array.from(basis.rho),
    globalSingularValues: Array.from(basis.global.singularValues),
    globalV: Array.from(basis.global.v),
    stats: { mean: basis.stats.yMean, min: basis.stats.yMin, max: basis.stats.yMax },
    selection: { local: Array.from(fit.selection.local), global: Array.from(fit.selection.global) },
    local: part(fit.local),
    global: part(fit.global),
    nested: nestedChoice(data, target, trainIdx, { ...options, frozen: {}, nested: grid, baselines: [], budgetCurve: [] }, grid, null),
  };
}

/** Arbitrary new values for the held-out model's source row and target, and for every matrix row outside the pool. */
function poison(data: PaceData, target: PreparedTarget, k: number, rng: Rng): { data: PaceData; target: PreparedTarget } {
  const view = data.view;
  const values = view.data.slice();
  const nMatrixRows = values.length / view.stride;
  const pool = new Set(Array.from(view.rows));
  const heldOutMatrixRow = view.rows[target.rows[k] as number] as number;
  for (let r = 0; r < nMatrixRows; r++) {
    if (pool.has(r) && r !== heldOutMatrixRow) continue;
    for (let c = 0; c < view.stride; c++) values[r * view.stride + c] = rng.next() < 0.5 ? rng.next() : 1;
  }
  const y = target.y.slice();
  y[k] = 0.987;
  const yBoot = target.yBoot ? target.yBoot.slice() : null;
  if (yBoot) for (let b = 0; b < target.bootstrap; b++) yBoot[k * target.bootstrap + b] = rng.next();
  const poisoned = { ...target, y, yBoot };
  return { data: { ...data, view: { ...view, data: values }, targets: data.targets.map((t) => (t === target ? poisoned : t)) }, target: poisoned };
}

function everyFold(data: PaceData, configFor: (t: string) => PaceConfig): number {
  const rng = new Rng('poison');
  let folds = 0;
  for (const target of data.targets)
    for (let k = 0; k < target.rows.length; k++) {
      const before = trainingSide(data, target, k, configFor(target.name));
      const p = poison(data, target, k, rng.fork(`${target.name}/${k}`));
      const after = trainingSide(p.data, p.target, k, configFor(target.name));
      expect(after, `${target.name}, held out ${data.models[target.rows[k] as number]}`).toEqual(before);
      folds++;
    }
  return folds;
}

/**
 * A synthetic store where the pool is not a prefix of the matrix: rows in scrambled name order,
 * source-only models (some fully unobserved, stored as zeros) interleaved, and one target that
 * covers only part of the pool.
 */
function scrambledSynthetic(): { matrix: ScoreMatrix; targets: TargetTable[] } {
  const syn = syntheticPace({ models: 14, instances: 600, dims: 2, targets: 2, targetInstances: 80, seed: 'leak' });
  const S = syn.matrix.instances.length;
  const rng = new Rng('scramble');
  const names = syn.matrix.models.map((m) => m.name);
  const outside = ['aa-outside', 'mm-outside', 'zz-outside', 'model-0005x'];
  const order = [...names.map((_, i) => i)].sort(() => 0).reverse();
  const rows: Array<{ name: string; values: Float64Array; observed: Uint8Array }> = [];
  order.forEach((m, i) => {
    rows.push({ name: names[m] as string, values: syn.matrix.values.slice(m * S, (m + 1) * S), observed: new Uint8Array(S).fill(1) });
    // Interleave models outside the pool: half unobserved (zeros), half with real-looking scores.
    if (i % 4 === 1) {
      const name = outside.shift()!;
      const observed = name.startsWith('m') || name.startsWith('a') ? new Uint8Array(S) : new Uint8Array(S).fill(1);
      rows.push({ name, values: Float64Array.from({ length: S }, () => (observed[0] ? (rng.next() < 0.5 ? 1 : 0) : 0)), observed });
    }
  });
  const values = new Float64Array(rows.length * S);
  const observed = new Uint8Array(rows.length * S);
  rows.forEach((r, i) => {
    values.set(r.values, i * S);
    observed.set(r.observed, i * S);
  });
  const matrix: ScoreMatrix = { models: rows.map((r) => ({ name: r.name, sources: [] })), instances: syn.matrix.instances, values, observed, provenance: {} };
  // Target 1 only for every other model: a subset of the pool.
  const t1 = syn.targets[1]!;
  const keep = (name: string) => names.indexOf(name) % 2 === 0;
  const subset: TargetTable = {
    ...t1,
    scores: Object.fromEntries(Object.entries(t1.scores).filter(([m]) => keep(m))),
    perInstance: Object.fromEntries(Object.entries(t1.perInstance!).filter(([m]) => keep(m))),
  };
  return { matrix, targets: [syn.targets[0]!, subset] };
}

/**
 * The family's training side in fold k: every shippable form fitted on the training models, and
 * the whole selection `fit` would run on them (their own cross-validation, every form's inner
 * predictions and the chosen kind). None of it may move when the held-out model changes.
 */
async function familySide(data: PaceData, target: PreparedTarget, k: number, config: PaceConfig) {
  const trainIdx = Int32Array.from({ length: target.rows.length - 1 }, (_, i) => (i < k ? i : i + 1));
  const basis = prepareFold(data, target, trainIdx, options, null, true);
  const forms = shippedForms(basis, fitTarget(basis, config, null));
  const inner = await crossValidatedPredictions(data, target, trainIdx, config, options, null);
  return {
    forms: Object.fromEntries(Object.entries(forms).map(([kind, f]) => [kind, { intercept: f.intercept, cols: Array.from(f.cols), weights: Array.from(f.weights) }])),
    chosen: inner.kind,
    inner: Object.fromEntries(Object.entries(inner.byKind).map(([kind, p]) => [kind, Array.from(p)])),
  };
}

/** Every baseline's prediction of the held-out model (it may read the model's source row, never its target). */
async function baselinePredictions(data: PaceData, target: PreparedTarget, k: number, config: PaceConfig) {
  const trainIdx = Int32Array.from({ length: target.rows.length - 1 }, (_, i) => (i < k ? i : i + 1));
  const basis = prepareFold(data, target, trainIdx, options, null, true);
  const cache = new Map<string, unknown>();
  const out: Record<string, number> = {};
  for (const name of baselineOrder)
    out[name] = await baselines[name].predict({ basis, testRow: target.rows[k] as number, budget: config.budget, ncH: config.ncH, rng: new Rng(`fixed/${k}`), cache });
  return out;
}

beforeAll(loadDense);

describe('the predictor family never sees the held-out model', () => {
  it('shippable forms, the inner selection and its predictions are unchanged when the held-out model’s cells and target are corrupted; baselines ignore its target', async () => {
    const { matrix, targets } = scrambledSynthetic();
    const { data } = prepareData(matrix, targets, { bootstrap: options.bootstrap, seed: options.seed });
    const config: PaceConfig = { budget: 40, q: 0.5, m: 0.5, ncH: 3, ncD: 2 };
    const rng = new Rng('poison-family');
    let folds = 0;
    for (const target of data!.targets)
      for (let k = 0; k < target.rows.length; k += 3) {
        const where = `${target.name}, held out ${data!.models[target.rows[k] as number]}`;
        const before = await familySide(data!, target, k, config);
        const p = poison(data!, target, k, rng.fork(`${target.name}/${k}`));
        expect(await familySide(p.data, p.target, k, config), where).toEqual(before);
        // The corruption is real: what reads the held-out row (its own prediction) does move.
        expect((await baselinePredictions(p.data, p.target, k, config))['ridge-all']).not.toBe((await baselinePredictions(data!, target, k, config))['ridge-all']);
        // Only the target changes for the baselines: they predict from the held-out source row.
        const y = target.y.slice();
        y[k] = 1 - (y[k] as number);
        const relabelled = { ...target, y };
        const relabelledData = { ...data!, targets: data!.targets.map((t) => (t === target ? relabelled : t)) };
        expect(await baselinePredictions(relabelledData, relabelled, k, config), where).toEqual(await baselinePredictions(data!, target, k, config));
        folds++;
      }
    expect(folds).toBe(8);
  }, 300_000);
});

describe('no training-side quantity depends on the held-out model or on models outside the pool', () => {
  it('synthetic: permuted pool rows, zero-filled models outside the pool, a target on part of the pool — every fold', () => {
    const { matrix, targets } = scrambledSynthetic();
    const { data } = prepareData(matrix, targets, { bootstrap: options.bootstrap, seed: options.seed });
    // The set-up must really exercise the mapping: pool row r is not matrix row r.
    expect(data!.view.rows.length).toBe(14);
    expect(Array.from(data!.view.rows).some((r, i) => r !== i)).toBe(true);
    expect(data!.targets.map((t) => t.rows.length)).toEqual([14, 7]);
    const config: PaceConfig = { budget: 40, q: 0.5, m: 0.5, ncH: 3, ncD: 2 };
    expect(everyFold(data!, () => config)).toBe(21);
  }, 120_000);
});

describe.skipIf(!hasSharedData)('real shared PACE data: every fold of every target', () => {
  let data: PaceData;
  let configs: Record<string, PaceConfig>;
  beforeAll(async () => {
    const inputs = await loadPaceInputs(nodeVfs, {
      sources: [shared('pace', 'results', 'standardized_results')],
      targets: [shared('openhands-index', 'results')],
      mapping: fixtures('logs', 'openhands-to-pace-mapping.json'),
      duplicates: 'first',
    });
    data = prepareData(inputs.matrix!, inputs.targets, { bootstrap: options.bootstrap, seed: options.seed }).data!;
    configs = parseConfigs(readFileSync(fixtures('pace', 'pace-frozen-c100.json'), 'utf8')).configs;
  }, 60_000);

  it('65 folds (5 targets × 13 models), PACE’s frozen C=100 settings', () => {
    // 19 source models, 13 in the pool: pool row r and matrix row r are different models.
    expect(data.view.data.length / data.view.stride).toBe(19);
    expect(data.view.rows.length).toBe(13);
    expect(everyFold(data, (t) => configs[t] ?? { budget: 100, q: 0.5, m: 0.5, ncH: 3, ncD: 3 })).toBe(65);
  }, 300_000);
});

/**
 * K-fold protocol (above `leaveOneOutUpTo` models; lowered here so a small pool exercises it):
 * an outer fold holds out several models at once, and the inner loops — the nested search and
 * the shipped form's own cross-validation — deal only the fold's training models into their
 * folds. Corrupting every held-out model of the outer fold (source rows and targets), and every
 * row outside the pool, must leave the inner selections and their residuals bit-identical.
 */
describe('K-fold protocol: the outer fold’s held-out models never enter the inner folds', () => {
  const protocol = { leaveOneOutUpTo: 4, folds: 3 };
  const kOptions = { ...options, frozen: {}, nested: grid, baselines: [], budgetCurve: [], foldProtocol: protocol };
  const config: PaceConfig = { budget: 40, q: 0.5, m: 0.5, ncH: 3, ncD: 2 };

  async function innerSide(data: PaceData, target: PreparedTarget, trainIdx: Int32Array) {
    const search = nestedSearch(data, target, trainIdx, kOptions, grid, null);
    const inner = await crossValidatedPredictions(data, target, trainIdx, config, options, null, [], protocol);
    return { config: search.config, residuals: Array.from(search.residuals), kind: inner.kind, folds: inner.folds, byKind: Object.fromEntries(Object.entries(inner.byKind).map(([k, p]) => [k, Array.from(p)])) };
  }

  it('every outer fold of both targets: nested choice, its residuals and the shipped form’s inner predictions are unchanged', async () => {
    const { matrix, targets } = scrambledSynthetic();
    const { data } = prepareData(matrix, targets, { bootstrap: options.bootstrap, seed: options.seed });
    const rng = new Rng('poison-k-fold');
    let folds = 0;
    for (const target of data!.targets) {
      const plan = planFolds(Array.from(target.rows, (r) => data!.models[r] as string), 'outer', protocol);
      expect(plan.kind).toBe('k-fold');
      for (const held of foldMembers(plan)) {
        const inFold = new Set(held);
        const trainIdx = Int32Array.from({ length: target.rows.length }, (_, i) => i).filter((i) => !inFold.has(i));
        const before = await innerSide(data!, target, trainIdx);
        let p = { data: data!, target };
        for (const k of held) p = poison(p.data, p.target, k, rng.fork(`${target.name}/${k}`));
        expect(await innerSide(p.data, p.target, trainIdx), `${target.name}, held out ${held.length} models`).toEqual(before);
        folds++;
      }
    }
    // 14 models and 7 models in 3 folds each (a fold can come out empty by hash and is skipped).
    expect(folds).toBeGreaterThanOrEqual(5);
  }, 300_000);

  it('evaluate end to end: the held-out models’ targets do not move their own predictions, nested choices or shipped choices', async () => {
    const { matrix, targets } = scrambledSynthetic();
    const { data } = prepareData(matrix, targets, { bootstrap: options.bootstrap, seed: options.seed });
    const target = data!.targets[0]!;
    const plan = planFolds(Array.from(target.rows, (r) => data!.models[r] as string), 'outer', protocol);
    const held = foldMembers(plan)[0]!;
    const run = (d: PaceData) => runLoocv(d, { ...kOptions, frozen: { [target.name]: config }, baselines: [...baselineOrder], budgetCurve: [20], maxFolds: 1 });
    const before = (await run(data!)).targets[0]!;
    expect(before.protocol.outer).toEqual({ kind: 'k-fold', folds: foldMembers(plan).length, evaluated: 1 });
    const y = target.y.slice();
    const yBoot = target.yBoot!.slice();
    for (const k of held) {
      y[k] = 1 - (y[k] as number);
      yBoot.fill(0.5, k * target.bootstrap, (k + 1) * target.bootstrap);
    }
    const relabelled = { ...target, y, yBoot };
    const after = (await run({ ...data!, targets: data!.targets.map((t) => (t === target ? relabelled : t)) })).targets[0]!;
    for (const [i, m] of before.methods.entries())
      for (const k of held) expect(after.methods[i]!.predictions[k], `${m.method}, model ${k}`).toBe(m.predictions[k]);
    expect(after.nestedChoices).toEqual(before.nestedChoices);
    expect(after.shippedChoices).toEqual(before.shippedChoices);
    // Only the fold's models were evaluated, each with a prediction from every row.
    expect(before.methods.every((m) => m.predictions.filter((p) => p !== null).length === held.length)).toBe(true);
  }, 300_000);
});
