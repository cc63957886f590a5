/** Inputs PACE must refuse or flag rather than fit on silently: invalid scores and mistyped config keys. */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { closestName } from '../../generator/core/kernel/suggest.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import { runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { runReference, skipPython } from './reference.js';

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
  it('its residuals, p-value and verdict are those of evaluate’s shipped row with the same settings, and its baseline MAE the mean predictor’s', async () => {
    const config = { budget: 30, q: 0.5, m: 0.5, ncH: 2, ncD: 2 };
    const configs = { 'agentic-0': config, 'agentic-1': config };
    const { model } = await fitPace(syn.matrix, syn.targets, { bootstrap: 0, alpha: 0.1, seed: '3', svdScope: 'fold', configs });
    const { data } = prepareData(syn.matrix, syn.targets, { bootstrap: 0, seed: '3' });
    const report = await runLoocv(data!, { bootstrap: 0, alpha: 0.1, seed: '3', svdScope: 'fold', frozen: configs, nested: null, baselines: ['mean'], budgetCurve: [], coverage: false });
    for (const t of model!.targets) {
      const r = report.targets.find((x) => x.target === t.target)!;
      // The form the fit chose on these folds, fixed for every fold in evaluate.
      const pace = r.methods.find((m) => m.method === `shipped-${t.cv.shippedKind}`)!;
      expect(t.shipped.kind).toBe(t.cv.shippedKind);
      expect(t.cv.mae).toBeCloseTo(t.cv.kindMae[t.cv.shippedKind], 12);
      // The simplest form not significantly worse than the lowest-MAE one; with 8 models no gap can be told apart.
      expect(t.cv.shippedKind).toBe('accuracy');
      const abs = r.truth.map((y, k) => Math.abs(y - pace.predictions[k]!)).sort((a, b) => a - b);
      const vsMean = r.comparisons.find((c) => c.method === `shipped-${t.cv.shippedKind}`)!.vsMean;
      expect(t.cv.pValue).toBe(vsMean.test.pTwoSided);
      expect(t.cv.verdict).toBe(vsMean.verdict);
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
  it('flags a coordinate more than 10% of the range width outside, and any proxy accuracy below the weakest training model', async () => {
    const { rangeExcursions } = await import('../../generator/core/pace/evaluation/skill.js');
    const range = { local: { min: [0, -1], max: [1, 1] }, global: null, proxyMean: { min: [0.3], max: [0.7] }, leverage: { local: null, global: null } };
    expect(rangeExcursions(range, { local: [0.5, 0], global: null, proxyMean: [0.3] })).toEqual([]);
    expect(rangeExcursions(range, { local: [0.5, 0], global: null, proxyMean: [0.72] })).toEqual([]);
    const out = rangeExcursions(range, { local: [1.2, -1.1], global: [5], proxyMean: [0.27] });
    expect(out.map((e) => [e.kind, e.side, e.coordinate, +e.excess.toFixed(6)])).toEqual([
      ['box', 'local', 0, 0.2],
      ['below', 'proxyMean', 0, 0.03],
    ]);
    expect(rangeExcursions(range, { local: [0.5, 0], global: null, proxyMean: [0.75] }).map((e) => e.kind)).toEqual(['box']);
    // Every proxy item wrong is below the range even when a training model also scored 0.
    const floor = { ...range, proxyMean: { min: [0], max: [0.7] } };
    expect(rangeExcursions(floor, { local: [0.5, 0], global: null, proxyMean: [0] }).map((e) => e.kind)).toEqual(['below']);
  });

  it('does not count an excursion within two sampling standard errors of the box, and never excuses a proxy accuracy below it', async () => {
    const { rangeExcursions } = await import('../../generator/core/pace/evaluation/skill.js');
    const range = { local: { min: [0, -1], max: [1, 1] }, global: null, proxyMean: { min: [0.3], max: [0.7] }, leverage: { local: null, global: null } };
    const u = { local: [1.2, -1.1], global: null, proxyMean: [0.27] };
    // 0.2 beyond coordinate 1 with a standard error of 0.11: within 2 SE, not counted; with 0.09 it is.
    const excused = rangeExcursions(range, u, { local: [0.11, 0], global: null, proxyMean: [0.5] });
    expect(excused.map((e) => [e.kind, e.side, e.coordinate])).toEqual([['below', 'proxyMean', 0]]);
    const counted = rangeExcursions(range, u, { local: [0.09, 0.09], global: null, proxyMean: [0] });
    expect(counted.map((e) => [e.kind, e.side, e.coordinate, e.standardError])).toEqual([
      ['box', 'local', 0, 0.09],
      ['below', 'proxyMean', 0, undefined],
    ]);
    // Above the best training model's proxy accuracy: noise decides; below the weakest: never.
    expect(rangeExcursions(range, { local: null, global: null, proxyMean: [0.75] }, { local: null, global: null, proxyMean: [0.03] })).toEqual([]);
    expect(rangeExcursions(range, { local: null, global: null, proxyMean: [0.75] }, { local: null, global: null, proxyMean: [0.02] }).map((e) => e.kind)).toEqual(['box']);
  });

  it.skipIf(skipPython)('takes a coordinate\'s standard error from the map the checkpoint is placed with, full or partial (numpy reference)', async () => {
    const { loadDense } = await import('../../generator/core/pace/numerics/dense.js');
    await loadDense();
    const { coordinateStandardErrors, itemVariance } = await import('../../generator/core/pace/evaluation/range-noise.js');
    const { embedPartial } = await import('../../generator/core/pace/embedding/embed.js');
    // 5 items × 2 dimensions, unequal rows so a transposed or shifted index shows.
    const basis = Float64Array.from([1, 0.2, 0.5, -0.3, 0.1, 0.9, 0.7, 0.4, -0.2, 0.6]);
    const e = { cols: Int32Array.from([0, 1, 2, 3, 4]), k: 2, basis, proj: Float64Array.from([0.3, 0.1, 0.2, -0.4, 0.05, 0.5, 0.25, 0.2, -0.1, 0.3]) };
    expect(itemVariance(0.25)).toBeCloseTo(0.1875, 15);
    expect(itemVariance(1)).toBe(0);
    // Fully observed: √(v·Σ_s proj_sj²).
    const full = coordinateStandardErrors(Float64Array.from([1, 0, 1, 1, 0]), e, 0.24)!;
    expect(full[0]).toBeCloseTo(Math.sqrt(0.24 * (0.09 + 0.04 + 0.0025 + 0.0625 + 0.01)), 12);
    expect(full[1]).toBeCloseTo(Math.sqrt(0.24 * (0.01 + 0.16 + 0.25 + 0.04 + 0.09)), 12);
    // Item 2 unobserved: the least-squares map A(AᵀA)⁻¹ of the observed rows (numpy, same inputs).
    const x = Float64Array.from([1, 0, NaN, 1, 0]);
    const partial = coordinateStandardErrors(x, e, 0.24)!;
    const numpy = runReference(
      `import json, sys
import numpy as np
a = np.array(json.load(sys.stdin)).reshape(5, 2)[[0, 1, 3, 4]]
p = a @ np.linalg.inv(a.T @ a)
print(json.dumps({"se": list(np.sqrt(0.24 * (p ** 2).sum(axis=0))), "row": list(p[1])}))`,
      Array.from(basis),
    );
    expect(partial[0]).toBeCloseTo(numpy.se[0], 12);
    expect(partial[1]).toBeCloseTo(numpy.se[1], 12);
    // And it is the map embedPartial places with: a unit change of one observed item moves u by P's row.
    const u0 = embedPartial(x, e)!;
    const u1 = embedPartial(Float64Array.from([1, 1, NaN, 1, 0]), e)!;
    expect(u1[0]! - u0[0]!).toBeCloseTo(numpy.row[0], 12);
    expect(u1[1]! - u0[1]!).toBeCloseTo(numpy.row[1], 12);
    expect(coordinateStandardErrors(Float64Array.from([1, NaN, NaN, NaN, NaN]), e, 0.24)).toBeNull();
  });

  it('flags coordinates that are ordinary one by one but jointly unlike every training model (leverage)', async () => {
    const { loadDense } = await import('../../generator/core/pace/numerics/dense.js');
    await loadDense();
    const { rangeExcursions } = await import('../../generator/core/pace/evaluation/skill.js');
    const { leverageModel, leverageDistance } = await import('../../generator/core/pace/evaluation/leverage.js');
    // Twelve models along the diagonal of a 2-D embedding, with a little spread across it.
    const u = Float64Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? Math.floor(i / 2) / 11 : Math.floor(i / 2) / 11 + (i % 4 === 1 ? 0.02 : -0.02)));
    const model = leverageModel(u, 2)!;
    expect(model.threshold).toBeGreaterThan(0);
    const range = { local: { min: [0, -0.02], max: [1, 1.02] }, global: null, proxyMean: null, leverage: { local: model, global: null } };
    // Inside the box on both coordinates, but off the diagonal every model lies on.
    const off = [0.1, 0.9];
    expect(rangeExcursions({ ...range, leverage: { local: null, global: null } }, { local: off, global: null, proxyMean: null })).toEqual([]);
    expect(rangeExcursions(range, { local: off, global: null, proxyMean: null }).map((e) => e.kind)).toEqual(['leverage']);
    expect(rangeExcursions(range, { local: [0.5, 0.5], global: null, proxyMean: null })).toEqual([]);
    expect(leverageDistance(model, off)).toBeGreaterThan(leverageDistance(model, [0.5, 0.5]));
  });
});
