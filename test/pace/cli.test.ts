/** fit / predict / evaluate end to end through the CLI, on stores written from synthetic data. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { hasSharedData, shared } from '../helpers/env.js';
import { defaultFoldProtocol, foldMembers, planFolds } from '../../generator/core/pace/evaluation/folds.js';

const dir = tempDir('aptpace-pace-cli-');
const trainStore = path.join(dir, 'train-store');
const newStore = path.join(dir, 'new-store');
const out = path.join(dir, 'fit');
const fast = ['--budget', '40', '--bootstrap', '30', '--nc-h', '2', '--nc-d', '2'];

beforeAll(async () => {
  const syn = syntheticPace({ models: 13, instances: 600, dims: 2, targets: 2, targetInstances: 100, seed: 'cli' });
  const n = 12;
  const S = syn.matrix.instances.length;
  const heldOut = syn.matrix.models[n]!.name;
  const strip = (t: (typeof syn.targets)[number]) => {
    const scores = { ...t.scores };
    delete scores[heldOut];
    const perInstance = { ...t.perInstance };
    delete perInstance[heldOut];
    return { ...t, scores, perInstance };
  };
  await saveStore(nodeVfs, trainStore, {
    matrix: { ...syn.matrix, models: syn.matrix.models.slice(0, n), values: syn.matrix.values.slice(0, n * S), observed: syn.matrix.observed.slice(0, n * S) },
    targets: syn.targets.map(strip),
  });
  // The new checkpoint's store holds only its own row, with one proxy-relevant gap introduced later.
  await saveStore(nodeVfs, newStore, {
    matrix: { ...syn.matrix, models: [syn.matrix.models[n]!], values: syn.matrix.values.slice(n * S), observed: syn.matrix.observed.slice(n * S) },
    targets: [],
  });
});

describe('aptpace fit', () => {
  it('writes the model file, an lm_eval --samples file, the proxy set and the skill map', async () => {
    const res = await cli('fit', '--store', trainStore, '--out', out, ...fast, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.data.files.sort()).toEqual(['model.json', 'proxy-set.json', 'samples.json', 'skill-map.json']);
    const model = JSON.parse(readFileSync(path.join(out, 'model.json'), 'utf8'));
    expect(model.format).toBe('aptpace-pace-model');
    expect(model.targets.map((t: any) => t.target)).toEqual(['agentic-0', 'agentic-1']);
    expect(model.targets[0].linear.weights).toHaveLength(40);
    expect(model.versions.aptpace).toMatch(/^\d+\.\d+\.\d+/);
    const samples = JSON.parse(readFileSync(path.join(out, 'samples.json'), 'utf8'));
    let total = 0;
    for (const ids of Object.values(samples) as number[][]) {
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      total += ids.length;
    }
    expect(total).toBe(model.proxy.length);
    const skill = JSON.parse(readFileSync(path.join(out, 'skill-map.json'), 'utf8'));
    const share = skill.overall.reduce((s: number, x: any) => s + x.weightShare, 0);
    expect(share).toBeCloseTo(1, 12);
  });

  it('refuses to overwrite without --force; with --force the output is byte-identical', async () => {
    const before = readFileSync(path.join(out, 'model.json'));
    const again = await cli('fit', '--store', trainStore, '--out', out, ...fast);
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('output-exists');
    const forced = await cli('fit', '--store', trainStore, '--out', out, ...fast, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(path.join(out, 'model.json')).equals(before)).toBe(true);
  });

  it('usage errors exit 2', async () => {
    expect((await cli('fit', '--out', path.join(dir, 'x'))).code).toBe(2);
    expect((await cli('fit', '--store', trainStore, '--out', path.join(dir, 'x'), '--q', '2')).code).toBe(2);
    expect((await cli('fit', '--store', trainStore, '--out', path.join(dir, 'x'), '--svd-scope', 'maybe')).code).toBe(2);
    expect((await cli('fit', '--store', trainStore, '--out', path.join(dir, 'x'), '--grid', path.join(dir, 'grid.json'))).code).toBe(2);
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  });

  it('--tune ships settings from the grid, tuned by cross-validation over the target’s models', async () => {
    const grid = path.join(dir, 'tune-grid.json');
    writeFileSync(grid, JSON.stringify({ budgets: [20, 40], qs: [0.5], ms: [0, 1], ncHs: [1, 2], ncDs: [2] }));
    const res = await cli('fit', '--store', trainStore, '--out', path.join(dir, 'tuned'), '--bootstrap', '30', '--tune', '--grid', grid, '--target', 'agentic-0', '--json');
    expect(res.code, res.stderr).toBe(0);
    const model = JSON.parse(readFileSync(path.join(dir, 'tuned', 'model.json'), 'utf8'));
    const c = model.targets[0].config;
    expect([20, 40]).toContain(c.budget);
    expect([0, 1]).toContain(c.m);
    expect(model.targets[0].shipped.weights.every((w: any) => w.weight >= 0)).toBe(true);
  });
});

describe('aptpace predict', () => {
  it('predicts every target with intervals and win probabilities (--json), and writes --out', async () => {
    const file = path.join(dir, 'pred.json');
    const res = await cli('predict', '--model-file', path.join(out, 'model.json'), '--model', 'model-0012', '--store', newStore, '--out', file, '--json');
    expect(res.code, res.stderr).toBe(0);
    const forecasts = res.json.data.forecasts;
    expect(forecasts.map((f: any) => f.target)).toEqual(['agentic-0', 'agentic-1']);
    for (const f of forecasts) {
      expect(f.interval[0]).toBeLessThanOrEqual(f.predicted);
      expect(f.interval[1]).toBeGreaterThanOrEqual(f.predicted);
      expect(f.winProbabilities).toHaveLength(12);
      expect(f.missingInstances).toBe(0);
    }
    expect(JSON.parse(readFileSync(file, 'utf8')).forecasts).toEqual(forecasts);
  });

  it('--min-score gates a CI step: exit 1 below the threshold, 0 above it; unknown targets and bad syntax are reported', async () => {
    const base = ['predict', '--model-file', path.join(out, 'model.json'), '--model', 'model-0012', '--store', newStore];
    const low = await cli(...base, '--min-score', 'agentic-0=0');
    expect(low.code, low.stderr).toBe(0);
    const high = await cli(...base, '--min-score', 'agentic-0=0', '--min-score', 'agentic-1=99.9', '--json');
    expect(high.code).toBe(1);
    // Past the end of the target's scale is a usage error that names the scale.
    const offScale = await cli(...base, '--min-score', 'agentic-1=100.5');
    expect(offScale.code).toBe(2);
    expect(offScale.stderr).toContain('percent scale');
    // Beside the gate, fit's own warning may name a simpler evaluate-only predictor that errs significantly less.
    const gate = high.json.findings.filter((f: any) => f.code !== 'pace-simpler-predictor-better');
    expect(gate.map((f: any) => f.code)).toEqual(['pace-threshold-failed']);
    expect(gate[0].args.target).toBe('agentic-1');
    const unknown = await cli(...base, '--min-score', 'nope=1', '--json');
    expect(unknown.code).toBe(1);
    expect(unknown.json.findings.map((f: any) => f.code).filter((c: string) => c !== 'pace-simpler-predictor-better')).toEqual(['pace-threshold-unknown-target']);
    expect((await cli(...base, '--min-score', 'agentic-0')).code).toBe(2);
  });

  it('an unknown model, a broken model file and ambiguous inputs are reported', async () => {
    const missing = await cli('predict', '--model-file', path.join(out, 'model.json'), '--model', 'nobody', '--store', newStore, '--json');
    expect(missing.code).toBe(1);
    expect(missing.json.findings.map((f: any) => f.code)).toEqual(['pace-model-not-in-logs']);
    const bad = path.join(dir, 'bad-model.json');
    writeFileSync(bad, JSON.stringify({ format: 'something-else' }));
    const broken = await cli('predict', '--model-file', bad, '--model', 'model-0012', '--store', newStore, '--json');
    expect(broken.code).toBe(1);
    expect(broken.json.findings.map((f: any) => f.code)).toEqual(['pace-model-file-invalid']);
    expect((await cli('predict', '--model-file', bad, '--model', 'x')).code).toBe(2);
    // A fit that never ran is a finding (exit 1), not a crash (exit 3).
    const absent = await cli('predict', '--model-file', path.join(dir, 'no-such-model.json'), '--model', 'model-0012', '--store', newStore, '--json');
    expect(absent.code).toBe(1);
    expect(absent.json.findings.map((f: any) => f.code)).toEqual(['pace-model-file-invalid']);
    expect((await cli('predict', '--model-file', bad, '--model', 'x', '--store', newStore, '--duplicates', 'sometimes')).code).toBe(2);
  });

  it('predict and check give the same numbers for the same inputs', async () => {
    const model = path.join(out, 'model.json');
    const predicted = await cli('predict', '--model-file', model, '--model', 'model-0012', '--store', newStore, '--min-score', 'agentic-0=0', '--json');
    const checked = await cli('check', '--model-file', model, '--model', 'model-0012', '--store', newStore, '--min-score', 'agentic-0=0', '--out', path.join(dir, 'check-report'), '--json');
    expect(predicted.code).toBe(0);
    expect(checked.code).toBe(0);
    const byTarget = (rows: any[]) => Object.fromEntries(rows.map((r) => [r.target, [r.predicted, r.interval]]));
    expect(byTarget(checked.json.data.targets)).toEqual(byTarget(predicted.json.data.forecasts));
  });
});

describe('aptpace evaluate', () => {
  it('prints the LOOCV table and writes loocv.md + loocv.json with baselines, nested choices and the budget curve', async () => {
    const grid = path.join(dir, 'grid.json');
    writeFileSync(grid, JSON.stringify({ budgets: [20, 40], qs: [0.5], ms: [0, 1], ncHs: [1, 2], ncDs: [2] }));
    const report = path.join(dir, 'report');
    const res = await cli('evaluate', '--store', trainStore, ...fast, '--grid', grid, '--budgets', '20,40', '--baselines', 'mean,ridge-all,random-c', '--target', 'agentic-0', '--out', report, '--json');
    expect(res.code, res.stderr).toBe(0);
    const t = res.json.data.targets[0];
    expect(t.target).toBe('agentic-0');
    expect(t.methods.map((m: any) => m.method)).toEqual(['shipped', 'shipped-tuned', 'shipped-accuracy', 'shipped-benchmark-accuracy', 'shipped-weighted', 'shipped-ensemble', 'pace-frozen', 'pace-nested', 'mean', 'ridge-all', 'random-c']);
    expect(t.nestedChoices).toHaveLength(12);
    expect(t.shippedChoices).toHaveLength(12);
    // Coverage is measured for the shipped row and for the nested row, in every outer fold.
    expect(t.coverage.map((c: any) => c.folds)).toEqual([12, 12]);
    expect(t.nestedCoverage.map((c: any) => c.folds)).toEqual([12, 12]);
    // And for every other row, each from its own cross-validated residuals over the training models.
    for (const m of t.methods) expect(m.coverage.map((c: any) => c.folds), m.method).toEqual([12, 12]);
    // Every comparison with the mean predictor carries its Holm correction over the whole family.
    for (const c of t.comparisons) expect(c.vsMean.adjusted).toMatchObject({ method: 'holm', family: t.comparisons.length });
    expect(t.budgetCurve.map((b: any) => b.budget)).toEqual([20, 40]);
    const md = readFileSync(path.join(report, 'loocv.md'), 'utf8');
    expect(md).toContain('| pace-nested |');
    expect(md).toContain('| 80% interval covers | 95% interval covers |');
    expect(JSON.parse(readFileSync(path.join(report, 'loocv.json'), 'utf8')).targets[0].target).toBe('agentic-0');
    expect((await cli('evaluate', '--store', trainStore, '--baselines', 'oracle')).code).toBe(2);
  });

  it('--outer-folds: leave-one-out by default at this size, K-fold on request, and the report says which', async () => {
    const base = ['evaluate', '--store', trainStore, ...fast, '--no-nested', '--budgets', '', '--baselines', 'mean', '--target', 'agentic-0'];
    const loo = await cli(...base, '--json');
    expect(loo.code, loo.stderr).toBe(0);
    expect(loo.json.data.targets[0].protocol).toEqual({ outer: { kind: 'leave-one-out', folds: 12, evaluated: 12 }, inner: { kind: 'leave-one-out', folds: null }, leaveOneOutUpTo: 50 });
    const k = await cli(...base, '--outer-folds', '3', '--json');
    expect(k.code, k.stderr).toBe(0);
    const t = k.json.data.targets[0];
    // Dealt by name hash: on 12 models a fold can come out empty, and the report counts the folds that ran.
    const folds = foldMembers(planFolds(t.models, 'outer', defaultFoldProtocol, 3)).length;
    expect(t.protocol.outer).toEqual({ kind: 'k-fold', folds, evaluated: folds });
    // Every model is still predicted once, by a fit that did not see it.
    expect(t.methods.every((m: any) => m.predictions.every((p: unknown) => typeof p === 'number'))).toBe(true);
    expect((await cli(...base, '--outer-folds', '3')).stdout).toContain(`Protocol: outer ${folds}-fold over models`);
    expect((await cli(...base, '--outer-folds', '1')).code).toBe(2);
  });
});

describe.skipIf(!hasSharedData)('aptpace predict --logs (real lm-evaluation-harness output)', () => {
  it('reads the checkpoint’s samples through the harness-log reader and predicts from its proxy instances', async () => {
    const logsDir = shared('harness-logs', 'output_0.4.13.dev0');
    const { matrix: logged } = await ingestLogs(nodeVfs, [logsDir]);
    // Training models scored on exactly the instances the harness run produced.
    const syn = syntheticPace({ models: 10, instances: logged.instances.length, dims: 1, targets: 1, targetInstances: 50, seed: 'logs' });
    const store = path.join(dir, 'logs-train-store');
    await saveStore(nodeVfs, store, { matrix: { ...syn.matrix, instances: logged.instances.map((i) => ({ key: i.key, task: i.task, doc_id: i.doc_id, metric: i.metric })) }, targets: syn.targets });
    const modelDir = path.join(dir, 'logs-fit');
    const fitted = await cli('fit', '--store', store, '--out', modelDir, '--budget', '6', '--nc-h', '1', '--nc-d', '1', '--bootstrap', '20', '--json');
    expect(fitted.code, fitted.stderr).toBe(0);
    const samples = JSON.parse(readFileSync(path.join(modelDir, 'samples.json'), 'utf8'));
    expect(Object.keys(samples).every((t) => t.startsWith('demo_'))).toBe(true);
    const res = await cli('predict', '--model-file', path.join(modelDir, 'model.json'), '--model', logged.models[0]!.name, '--logs', logsDir, '--json');
    expect(res.json.data.forecasts).toHaveLength(1);
    const f = res.json.data.forecasts[0];
    expect(f.missingInstances).toBe(0);
    expect(Number.isFinite(f.predicted)).toBe(true);
    // Only the flags on whether the prediction can be vouched for (the demo model is no pool model).
    expect(res.json.findings.filter((x: any) => x.code.startsWith('pace-') && !['pace-prediction-out-of-range', 'pace-prediction-unproven', 'pace-prediction-below-range', 'pace-simpler-predictor-better'].includes(x.code))).toEqual([]);
  });
});
