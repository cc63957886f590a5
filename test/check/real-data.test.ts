/**
 * `aptpace check` on real public data: PACE's published source scores and the OpenHands Index
 * targets (../shared/data), and real lm-evaluation-harness output for the --logs path.
 * Skips cleanly when the shared data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-check-real-');

describe.skipIf(!hasSharedData)('check on PACE sources × OpenHands Index targets', () => {
  const fitDir = path.join(dir, 'fit');
  const sources = () => shared('pace', 'results', 'standardized_results');
  const common = () => ['--sources', sources(), '--mapping', fixtures('logs', 'openhands-to-pace-mapping.json'), '--duplicates', 'first'];
  let model: any;

  beforeAll(async () => {
    const res = await cli('fit', ...common(), '--targets', shared('openhands-index', 'results'), '--config', fixtures('pace', 'pace-frozen-c100.json'), '--bootstrap', '40', '--seed', '42', '--target', 'swe-bench', '--target', 'gaia', '--out', fitDir, '--quiet');
    expect(res.code, res.stderr).toBe(0);
    model = JSON.parse(readFileSync(path.join(fitDir, 'model.json'), 'utf8'));
  }, 60_000);

  /** Proxy keys of one target that GLM-5's own CSV files score, read straight from the CSVs. */
  function observedInCsv(target: any, name: string): Set<string> {
    const byKey = new Map<string, { task: string; doc_id: string }>(model.proxy.map((p: any) => [p.key, p]));
    const keys = [...new Set<string>([...(target.local?.instances ?? []), ...(target.global?.instances ?? [])])];
    const seen = new Set<string>();
    const cache = new Map<string, Set<string>>();
    for (const key of keys) {
      const ref = byKey.get(key)!;
      if (!cache.has(ref.task)) {
        const file = path.join(sources(), ref.task, `${name}.csv`);
        const ids = new Set<string>();
        if (existsSync(file)) {
          for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
            const [id, score] = line.split(',');
            if (id && score !== undefined && score !== '' && Number.isFinite(Number(score))) ids.add(id);
          }
        }
        cache.set(ref.task, ids);
      }
      if (cache.get(ref.task)!.has(ref.doc_id)) seen.add(key);
    }
    return seen;
  }

  it('GLM-5 (left out of the fit for low coverage) misses proxy instances: counted exactly, warned, and gated by --max-missing', async () => {
    expect(model.data.poolModels).not.toContain('GLM-5');
    const out = path.join(dir, 'glm-5');
    const res = await cli('check', '--model-file', path.join(fitDir, 'model.json'), '--model', 'GLM-5', ...common(), '--out', out, '--max-missing', '0.1', '--json');
    expect(res.code).toBe(1);
    const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
    for (const [i, t] of result.targets.entries()) {
      const spec = model.targets[i];
      const observed = observedInCsv(spec, 'GLM-5');
      expect(t.missingInstances).toBe(t.proxyInstances - observed.size);
      expect(t.missing.every((k: string) => !observed.has(k))).toBe(true);
    }
    const missingTargets = result.targets.filter((t: any) => t.missingFraction > 0.1).map((t: any) => t.target);
    expect(missingTargets.length).toBeGreaterThan(0);
    expect(res.json.findings.filter((f: any) => f.code === 'check-missing-too-high').map((f: any) => f.args.target)).toEqual(missingTargets);
    expect(readFileSync(path.join(out, 'summary.md'), 'utf8')).toContain('warning[pace-proxy-missing-instances]');
  }, 60_000);

  it('Kimi-K2 (source scores, no agentic run) is not passed where the fit shows no skill; with --allow-unproven it gets a full prediction with intervals', async () => {
    const out = path.join(dir, 'kimi-k2');
    const strict = await cli('check', '--model-file', path.join(fitDir, 'model.json'), '--model', 'Kimi-K2', ...common(), '--out', out, '--json');
    const unproven = model.targets.filter((t: any) => t.cv.verdict !== 'better').map((t: any) => t.target);
    // On 13 models no target's PACE-vs-mean MAE interval excludes 0 (docs/pace-reproduction.md).
    expect(unproven.length).toBeGreaterThan(0);
    expect(strict.code).toBe(1);
    for (const t of strict.json.data.targets) if (unproven.includes(t.target)) expect([t.status, t.concerns.includes('no-demonstrated-skill')]).toEqual(['cannot-judge', true]);
    const res = await cli('check', '--model-file', path.join(fitDir, 'model.json'), '--model', 'Kimi-K2', ...common(), '--out', path.join(dir, 'kimi-k2-allowed'), '--allow-unproven', '--json');
    expect(res.code, res.stderr).toBe(0);
    for (const t of res.json.data.targets) {
      expect(t.missingInstances).toBe(0);
      expect(t.interval[0]).toBeLessThanOrEqual(t.predicted);
      expect(t.interval[1]).toBeGreaterThanOrEqual(t.predicted);
      expect(t.winProbabilities).toHaveLength(model.targets[0].trainingModels.length);
    }
  }, 60_000);

  it('all-wrong and 5%-right checkpoints never pass and the report says why; all-right is predicted at least as high as a copy of any pool model', async () => {
    const S = model.proxy.length;
    const storeFor = async (name: string, values: Float64Array) => {
      const store = path.join(dir, `${name}-store`);
      await saveStore(nodeVfs, store, {
        matrix: { models: [{ name }], instances: model.proxy, values, observed: new Uint8Array(S).fill(1), provenance: {} } as any,
        targets: [],
      });
      return store;
    };
    // A threshold each target's median reference model meets: what a team would gate on.
    const median = (t: any) => {
      const s = t.trainingModels.map((m: any) => m.score * t.displayFactor).sort((a: number, b: number) => a - b);
      return s[Math.floor(s.length / 2)];
    };
    const thresholds = model.targets.flatMap((t: any) => ['--min-score', `${t.target}=${median(t)}`]);
    const run = async (name: string, values: Float64Array) => {
      const out = path.join(dir, name);
      const res = await cli('check', '--model-file', path.join(fitDir, 'model.json'), '--model', name, '--store', await storeFor(name, values), ...thresholds, '--out', out, '--json');
      return { res, md: readFileSync(path.join(out, 'summary.md'), 'utf8'), html: readFileSync(path.join(out, 'report.html'), 'utf8') };
    };
    const wrong = await run('all-wrong', new Float64Array(S));
    // Every 20th proxy item right: 5% of them.
    const few = await run('five-percent', Float64Array.from({ length: S }, (_, i) => (i % 20 === 0 ? 1 : 0)));
    for (const c of [wrong, few]) {
      expect(c.res.code).toBe(1);
      expect(c.res.json.data.passed).toBe(false);
      for (const t of c.res.json.data.targets) expect(t.status).not.toBe('pass');
      expect(c.md).toContain('**FAIL**');
      expect(c.md).toContain('CV MAE vs mean');
    }
    // No proxy item right is below every reference model, and the report says so.
    for (const t of wrong.res.json.data.targets) expect(t.concerns).toContain('below-training-range');
    expect(wrong.md).toMatch(/below every training model/);
    expect(wrong.html).toMatch(/below every training model/);
    const right = await run('all-right', new Float64Array(S).fill(1));
    // A copy of each pool model, read from the same sources the fit used.
    const { loadCheckpointMatrix } = await import('../../generator/core/pace/model-file/checkpoint-inputs.js');
    const { checkpointScores, predictPace } = await import('../../generator/core/pace/predict.js');
    const pool = await loadCheckpointMatrix(nodeVfs, { kind: 'sources', paths: [sources()] }, { mapping: fixtures('logs', 'openhands-to-pace-mapping.json'), duplicates: 'first' });
    right.res.json.data.targets.forEach((r: any, i: number) => {
      expect(r.predicted).toBeGreaterThanOrEqual(wrong.res.json.data.targets[i].predicted);
      expect(r.predicted).toBeGreaterThanOrEqual(few.res.json.data.targets[i].predicted);
    });
    let copies = 0;
    for (const t of model.targets)
      for (const m of t.trainingModels) {
        const scores = checkpointScores(pool.matrix!, m.name)!;
        const { forecasts } = await predictPace(model, m.name, scores);
        const f = forecasts.find((x) => x.target === t.target);
        if (!f) continue;
        copies++;
        const r = right.res.json.data.targets.find((x: any) => x.target === t.target);
        expect(r.predicted, `${t.target}: all-right vs ${m.name}`).toBeGreaterThanOrEqual(f.predicted - 1e-9);
      }
    expect(copies).toBeGreaterThan(20);
  }, 120_000);
});

describe.skipIf(!hasSharedData)('check --logs on real lm-evaluation-harness output', () => {
  it('reads the checkpoint through the harness-log reader and reports the same prediction as predict', async () => {
    const logsDir = shared('harness-logs', 'output_0.4.13.dev0');
    const { matrix: logged } = await ingestLogs(nodeVfs, [logsDir]);
    const syn = syntheticPace({ models: 10, instances: logged.instances.length, dims: 1, targets: 1, targetInstances: 50, seed: 'check-logs' });
    const store = path.join(dir, 'logs-train');
    await saveStore(nodeVfs, store, { matrix: { ...syn.matrix, instances: logged.instances.map((i) => ({ key: i.key, task: i.task, doc_id: i.doc_id, metric: i.metric })) }, targets: syn.targets });
    const fitDir = path.join(dir, 'logs-fit');
    const fitted = await cli('fit', '--store', store, '--out', fitDir, '--budget', '6', '--nc-h', '1', '--nc-d', '1', '--bootstrap', '20', '--quiet');
    expect(fitted.code, fitted.stderr).toBe(0);
    const name = logged.models[0]!.name;
    const args = ['--model-file', path.join(fitDir, 'model.json'), '--model', name, '--logs', logsDir];
    // The harness demo model is no pool model; whether PACE can vouch for it is not what this test is about.
    const res = await cli('check', ...args, '--out', path.join(dir, 'logs-report'), '--allow-unproven', '--json');
    expect(res.code, res.stderr).toBe(0);
    const predicted = await cli('predict', ...args, '--json');
    expect(res.json.data.inputs).toEqual({ kind: 'logs', paths: [logsDir], mapping: null });
    expect(res.json.data.targets.map((t: any) => t.predicted)).toEqual(predicted.json.data.forecasts.map((f: any) => f.predicted));
    expect(res.json.data.targets[0].missingInstances).toBe(0);
  }, 60_000);
});
