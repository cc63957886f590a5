/** Inputs PACE must refuse or flag rather than fit on silently: invalid scores and mistyped config keys. */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { prepareData } from '../../generator/core/pace/prepare.js';
import { syntheticPace } from '../../generator/core/pace/synthetic.js';
import { closestName } from '../../generator/core/kernel/suggest.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import { runLoocv } from '../../generator/core/pace/loocv.js';

const dir = tempDir('aptpace-pace-honesty-');
const store = path.join(dir, 'store');
const syn = syntheticPace({ models: 8, instances: 120, dims: 2, targets: 2, targetInstances: 40, seed: 'honesty' });

beforeAll(async () => {
  await saveStore(nodeVfs, store, { matrix: syn.matrix, targets: syn.targets });
});

describe('invalid scores', () => {
  it('a NaN, an infinite or an out-of-[0,1] source score is an error naming model and instance; the cell is unobserved, the input untouched', () => {
    const values = Float64Array.from(syn.matrix.values);
    const S = syn.matrix.instances.length;
    values[0] = NaN;
    values[S + 3] = Infinity;
    values[2 * S + 5] = 1.5;
    const matrix = { ...syn.matrix, values };
    const { data, findings } = prepareData(matrix, syn.targets, { bootstrap: 0, seed: '1' });
    const bad = findings.filter((f) => f.code === 'pace-source-score-invalid');
    expect(bad.map((f) => [f.severity, f.args.model, f.path.field, f.args.value])).toEqual([
      ['error', syn.matrix.models[0]!.name, syn.matrix.instances[0]!.key, 'NaN'],
      ['error', syn.matrix.models[1]!.name, syn.matrix.instances[3]!.key, 'Infinity'],
      ['error', syn.matrix.models[2]!.name, syn.matrix.instances[5]!.key, '1.5'],
    ]);
    // Those instances are no longer complete over the pool, so none of them is selectable.
    const keys = new Set(data!.instances.map((i) => i.key));
    for (const c of [0, 3, 5]) expect(keys.has(syn.matrix.instances[c]!.key)).toBe(false);
    expect(matrix.observed[0]).toBe(1);
  });

  it('a percent target score above 100 is an error and the model is left out of that target', () => {
    const t = { ...syn.targets[0]!, scores: { ...syn.targets[0]!.scores, [syn.matrix.models[0]!.name]: 130 } };
    const { data, findings } = prepareData(syn.matrix, [t], { bootstrap: 0, seed: '1' });
    expect(findings.filter((f) => f.code === 'pace-target-score-invalid').map((f) => [f.severity, f.args.model, f.args.value])).toEqual([['error', syn.matrix.models[0]!.name, 130]]);
    expect(data!.targets[0]!.rows).toHaveLength(7);
  });

  it('fit exits 1 on a store holding an invalid source score', async () => {
    const values = Float64Array.from(syn.matrix.values);
    values[7] = -0.5;
    const badStore = path.join(dir, 'bad-store');
    await saveStore(nodeVfs, badStore, { matrix: { ...syn.matrix, values }, targets: syn.targets });
    const res = await cli('fit', '--store', badStore, '--out', path.join(dir, 'bad-fit'), '--budget', '20', '--nc-h', '1', '--nc-d', '1', '--bootstrap', '0', '--json');
    expect(res.code).toBe(1);
    expect(res.json.findings.map((f: any) => f.code)).toContain('pace-source-score-invalid');
  });
});

describe('config keys are checked against the targets of the inputs', () => {
  it('suggests the closest target name, ignoring case and punctuation', () => {
    expect(closestName('swe-bench', ['gaia', 'swebench', 'swtbench'])).toBe('swebench');
    expect(closestName('totally-else', ['gaia', 'swebench'])).toBeNull();
  });

  it('an unknown key or setting is a usage error (exit 2) with "did you mean"; nothing is fitted', async () => {
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ 'agentic0': { budget: 20 }, 'agentic-1': { budget: 20 } }));
    const res = await cli('fit', '--store', store, '--config', config, '--out', path.join(dir, 'fit-typo'));
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('agentic0 is not a target of the inputs (did you mean agentic-0?)');
    writeFileSync(config, JSON.stringify({ 'agentic-0': { budgt: 20 } }));
    const res2 = await cli('evaluate', '--store', store, '--config', config, '--no-nested');
    expect(res2.code).toBe(2);
    expect(res2.stderr).toContain('unknown setting budgt');
  });

  it('a key for a target of the inputs that --target leaves out is fine', async () => {
    const config = path.join(dir, 'config-ok.json');
    writeFileSync(config, JSON.stringify({ 'agentic-0': { budget: 20, nc_h: 1, nc_d: 1 }, 'agentic-1': { budget: 20 } }));
    const res = await cli('fit', '--store', store, '--config', config, '--target', 'agentic-0', '--bootstrap', '0', '--out', path.join(dir, 'fit-ok'), '--json');
    expect(res.code, res.stderr).not.toBe(2);
    expect(res.json.data.targets).toEqual(['agentic-0']);
  });
});

describe('fit records the cross-validated skill', () => {
  it('its residuals are those of evaluate’s leave-one-out with the same settings, and its baseline MAE the mean predictor’s', async () => {
    const config = { budget: 30, q: 0.5, m: 0.5, ncH: 2, ncD: 2 };
    const configs = { 'agentic-0': config, 'agentic-1': config };
    const { model } = await fitPace(syn.matrix, syn.targets, { bootstrap: 0, alpha: 0.1, seed: '3', svdScope: 'fold', configs });
    const { data } = prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed: '3' });
    const report = await runLoocv(data!, { bootstrap: 0, alpha: 0.1, seed: '3', svdScope: 'fold', frozen: configs, nested: null, baselines: ['mean'], budgetCurve: [], coverage: false });
    for (const t of model!.targets) {
      const r = report.targets.find((x) => x.target === t.target)!;
      const pace = r.methods.find((m) => m.method === 'pace-frozen')!;
      const abs = r.truth.map((y, k) => Math.abs(y - pace.predictions[k]!)).sort((a, b) => a - b);
      expect(t.cv.absResiduals).toHaveLength(8);
      t.cv.absResiduals.forEach((x, i) => expect(x).toBeCloseTo(abs[i]!, 12));
      expect(t.cv.meanMae).toBeCloseTo(r.methods.find((m) => m.method === 'mean')!.metrics.mae, 12);
      expect(t.cv.mae).toBeCloseTo(pace.metrics.mae, 12);
      expect(t.cv.interval[0]).toBeLessThanOrEqual(t.cv.maeDifference);
      expect(t.cv.interval[1]).toBeGreaterThanOrEqual(t.cv.maeDifference);
      expect(t.range.local?.min.length ?? t.range.global!.min.length).toBeGreaterThan(0);
    }
  });
});

describe('source benchmarks', () => {
  const tasks = [...new Set(syn.matrix.instances.map((i) => i.task))].sort();

  it('a benchmark on which most pool models score 0 everywhere is flagged by name', () => {
    const values = Float64Array.from(syn.matrix.values);
    const S = syn.matrix.instances.length;
    syn.matrix.instances.forEach((inst, c) => {
      if (inst.task === tasks[0]) for (let r = 0; r < 5; r++) values[r * S + c] = 0;
    });
    const { findings } = prepareData({ ...syn.matrix, values }, syn.targets, { bootstrap: 0, seed: '1' });
    expect(findings.filter((f) => f.code === 'pace-task-mostly-zero').map((f) => [f.args.task, f.args.zero, f.args.models])).toEqual([[tasks[0], 5, 8]]);
    expect(prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed: '1' }).findings.some((f) => f.code === 'pace-task-mostly-zero')).toBe(false);
  });

  it('--exclude-benchmark leaves a benchmark out by task or task prefix; an unknown name is a usage error with a suggestion', async () => {
    expect(tasks.length).toBeGreaterThan(1);
    const res = await cli('fit', '--store', store, '--exclude-benchmark', tasks[0]!, '--budget', '20', '--nc-h', '1', '--nc-d', '1', '--bootstrap', '0', '--out', path.join(dir, 'excl'), '--json');
    expect(res.code).not.toBe(2);
    const model = JSON.parse((await import('node:fs')).readFileSync(path.join(dir, 'excl', 'model.json'), 'utf8'));
    expect(model.proxy.length).toBeGreaterThan(0);
    expect(model.proxy.some((p: any) => p.task === tasks[0])).toBe(false);
    expect(Object.keys(model.data.instancesByTask)).not.toContain(tasks[0]);
    const typo = await cli('evaluate', '--store', store, '--exclude-benchmark', `${tasks[0]}x`, '--no-nested');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`did you mean ${tasks[0]}?`);
  });
});

describe('training range', () => {
  it('flags a coordinate or the mean proxy score more than 10% of the range width outside the training range', async () => {
    const { rangeExcursions } = await import('../../generator/core/pace/skill.js');
    const range = { local: { min: [0, -1], max: [1, 1] }, global: null, proxyMean: { min: [0.3], max: [0.7] } };
    expect(rangeExcursions(range, { local: [0.5, 0], global: null, proxyMean: [0.27] })).toEqual([]);
    const out = rangeExcursions(range, { local: [1.2, -1.1], global: [5], proxyMean: [0.2] });
    expect(out.map((e) => [e.side, e.coordinate, +e.excess.toFixed(6)])).toEqual([
      ['local', 0, 0.2],
      ['proxyMean', 0, 0.25],
    ]);
  });
});

describe('non-finite numbers in the model file and in predictions', () => {
  it('a null (NaN/Infinity in JSON) where the model file needs a number makes it invalid, naming the field; check exits 1', async () => {
    const { readFileSync } = await import('node:fs');
    const fitDir = path.join(dir, 'nan-fit');
    const res = await cli('fit', '--store', store, '--budget', '20', '--nc-h', '1', '--nc-d', '1', '--bootstrap', '0', '--out', fitDir, '--quiet');
    expect(res.code).not.toBe(2);
    const model = JSON.parse(readFileSync(path.join(fitDir, 'model.json'), 'utf8'));
    const side = model.targets[0].local ? 'local' : 'global';
    model.targets[0][side].goalA.yMean = null;
    const broken = path.join(dir, 'nan-model.json');
    writeFileSync(broken, JSON.stringify(model));
    const check = await cli('check', '--model-file', broken, '--model', syn.matrix.models[0]!.name, '--store', store, '--out', path.join(dir, 'nan-check'), '--allow-unproven', '--json');
    expect(check.code).toBe(1);
    const f = check.json.findings.find((x: any) => x.code === 'pace-model-file-invalid');
    expect(f.args.reason).toBe(`targets[0].${side}.goalA.yMean is not a finite number`);
  });

  it('a NaN prediction is an error and no number is reported for that target', async () => {
    const { fitPace } = await import('../../generator/core/pace/fit.js');
    const { predictPace, checkpointScores } = await import('../../generator/core/pace/predict.js');
    const config = { budget: 20, q: 0.5, m: 0.5, ncH: 1, ncD: 1 };
    const { model } = await fitPace(syn.matrix, syn.targets, { bootstrap: 0, alpha: 0.1, seed: '5', svdScope: 'fold', configs: { 'agentic-0': config, 'agentic-1': config } });
    for (const side of ['local', 'global'] as const) {
      const g = model!.targets[0]![side]?.goalA;
      if (g) Object.assign(g, { intercept: NaN, yMean: NaN });
    }
    const name = syn.matrix.models[0]!.name;
    const { forecasts, findings } = await predictPace(model!, name, checkpointScores(syn.matrix, name)!);
    expect(forecasts.map((f) => f.target)).toEqual(['agentic-1']);
    const nan = findings.filter((f) => f.code === 'pace-prediction-not-finite');
    expect(nan.map((f) => [f.severity, f.args.target, f.args.field])).toEqual([['error', 'agentic-0', 'predicted']]);
  });
});

describe('cross-validation of large pools', () => {
  it('up to 50 models is leave-one-out; above, 10 balanced seeded folds, the same for the same seed', async () => {
    const { crossValidationFolds } = await import('../../generator/core/pace/coverage.js');
    const small = crossValidationFolds(50, 's');
    expect(small.folds).toBe(50);
    expect([...small.foldOf]).toEqual([...Array(50).keys()]);
    const large = crossValidationFolds(73, 's');
    expect(large.folds).toBe(10);
    const sizes = Array.from({ length: 10 }, (_, f) => large.foldOf.filter((x) => x === f).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect([...crossValidationFolds(73, 's').foldOf]).toEqual([...large.foldOf]);
    expect([...crossValidationFolds(73, 't').foldOf]).not.toEqual([...large.foldOf]);
  });

  it('a 60-model fit records 10-fold skill, and a model’s own score never reaches the prediction of its fold-mates', async () => {
    const big = syntheticPace({ models: 60, instances: 150, dims: 2, targets: 1, targetInstances: 30, seed: 'kfold', aggregateOnly: true });
    const config = { budget: 20, q: 0.5, m: 0.5, ncH: 2, ncD: 2 };
    const options = { bootstrap: 0, alpha: 0.1, seed: '9', svdScope: 'fold' as const };
    const { crossValidationFolds, crossValidatedPredictions } = await import('../../generator/core/pace/coverage.js');
    const { model } = await fitPace(big.matrix, big.targets, { ...options, configs: { 'agentic-0': config } });
    const cv = model!.targets[0]!.cv;
    expect(cv.models).toBe(60);
    expect(cv.folds).toBe(10);
    expect(cv.absResiduals).toHaveLength(60);
    const predictionsWith = (scores: Record<string, number>) => {
      const { data } = prepareData(big.matrix, [{ ...big.targets[0]!, scores }], { bootstrap: 0, seed: '9' });
      const target = data!.targets[0]!;
      const idx = Int32Array.from(target.rows.keys());
      return { data: data!, target, predictions: crossValidatedPredictions(data!, target, idx, config, options, null).predictions };
    };
    const base = predictionsWith(big.targets[0]!.scores);
    const { foldOf } = crossValidationFolds(base.target.rows.length, `${options.seed}/cv/${base.target.name}/${base.target.rows.length}`);
    const victim = 7;
    const name = base.data.models[base.target.rows[victim] as number] as string;
    const moved = predictionsWith({ ...big.targets[0]!.scores, [name]: big.targets[0]!.scores[name]! > 50 ? 1 : 99 });
    let mates = 0;
    let others = 0;
    foldOf.forEach((f, t) => {
      if (t === victim) return;
      const same = f === foldOf[victim];
      if (same) {
        mates++;
        expect(moved.predictions[t]).toBe(base.predictions[t]);
      } else if (moved.predictions[t] !== base.predictions[t]) others++;
    });
    expect(mates).toBeGreaterThan(3);
    // The victim trains every other fold, so its score moves their predictions: the test can see a leak.
    expect(others).toBeGreaterThan(0);
  });
});
