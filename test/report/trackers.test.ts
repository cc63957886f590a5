/**
 * `check --track wandb --track mlflow` through the real clients, offline: W&B's own run files
 * and MLflow's file store are read back (test/report/read_trackers.py) and compared with the
 * check's result.json. A tracker that cannot log is a warning; the verdict does not change.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { hasPython, inCi, python } from '../helpers/env.js';
import { saveTrainAndHeldOut } from '../helpers/pace-stores.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-trackers-');
const trainStore = path.join(dir, 'train');
const checkStore = path.join(dir, 'checkpoints');
const modelFile = path.join(dir, 'fit', 'model.json');
const TRAIN = 12;

const check = (name: string, out: string, ...extra: string[]) =>
  cli('check', '--model-file', modelFile, '--model', name, '--store', checkStore, '--out', out, '--allow-unproven', '--json', ...extra);
const track = ['--track', 'wandb,mlflow', '--python', python];
const codes = (res: { json: any }) => res.json.findings.map((f: any) => f.code as string);

function readBack(wandbDir: string, mlflowUri: string): { wandb: any[]; mlflow: any[] } {
  const res = spawnSync(python, [path.join(__dirname, 'read_trackers.py'), wandbDir, mlflowUri], { encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe.skipIf(!hasPython && !inCi)('check --track (W&B and MLflow, offline)', () => {
  beforeAll(async () => {
    process.env.WANDB_MODE = 'offline';
    delete process.env.WANDB_DIR;
    delete process.env.MLFLOW_TRACKING_URI;
    const syn = syntheticPace({ models: 15, instances: 400, dims: 2, targets: 2, targetInstances: 80, seed: 'trackers' });
    await saveTrainAndHeldOut(syn, TRAIN, trainStore, checkStore);
    const fitted = await cli('fit', '--store', trainStore, '--out', path.dirname(modelFile), '--budget', '30', '--bootstrap', '20', '--nc-h', '2', '--nc-d', '2', '--quiet');
    expect(fitted.code, fitted.stderr).toBe(0);
  });

  it('logs every target’s prediction, interval, threshold and verdict; unconfigured clients write inside --out', async () => {
    const out = path.join(dir, 'defaults');
    const plain = await check('model-0013', path.join(dir, 'plain'), '--min-score', 'agentic-0=5');
    const res = await check('model-0013', out, '--min-score', 'agentic-0=5', ...track);
    expect(res.code, res.stderr).toBe(plain.code);
    expect(codes(res).filter((c: string) => c === 'tracker-logged')).toHaveLength(2);
    const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'));
    const back = readBack(path.join(out, 'trackers'), `file://${path.join(out, 'trackers', 'mlruns')}`);
    expect(back.wandb).toHaveLength(1);
    expect(back.mlflow).toHaveLength(1);
    const [wb] = back.wandb;
    const [ml] = back.mlflow;
    expect([wb.project, wb.name, ml.experiment, ml.name]).toEqual(['aptpace', 'model-0013', 'aptpace', 'model-0013']);
    const logged = wb.history.find((row: any) => 'aptpace/passed' in row);
    expect(logged['aptpace/passed']).toBe(result.passed ? 1 : 0);
    expect(ml.metrics['aptpace/passed']).toEqual([[0, result.passed ? 1 : 0]]);
    expect(wb.summary['aptpace/verdict']).toBe(result.passed ? 'PASS' : 'FAIL');
    expect(ml.tags['aptpace/verdict']).toBe(result.passed ? 'PASS' : 'FAIL');
    expect(result.targets.length).toBe(2);
    for (const t of result.targets) {
      expect(t.predicted).not.toBeNull();
      const key = (what: string) => `aptpace/${t.target}/${what}`;
      expect(logged[key('predicted')]).toBeCloseTo(t.predicted, 12);
      expect(logged[key('interval_low')]).toBeCloseTo(t.interval[0], 12);
      expect(logged[key('interval_high')]).toBeCloseTo(t.interval[1], 12);
      expect(ml.metrics[key('predicted')][0][1]).toBeCloseTo(t.predicted, 12);
      expect(ml.tags[key('status')]).toBe(t.status);
      expect(wb.summary[key('status')]).toBe(t.status);
    }
    // The threshold is logged for the target that has one, and its outcome as 1/0.
    expect(logged['aptpace/agentic-0/min_score']).toBe(5);
    expect('aptpace/agentic-1/min_score' in logged).toBe(false);
    const t0 = result.targets.find((t: any) => t.target === 'agentic-0');
    if (t0.status === 'pass' || t0.status === 'fail') expect(logged['aptpace/agentic-0/passed']).toBe(t0.status === 'pass' ? 1 : 0);
  });

  it('checks of one series land in one run, ordered by --step, where the environment points the clients', async () => {
    const wandbDir = path.join(dir, 'wandb-home');
    const mlflowUri = `file://${path.join(dir, 'mlflow-home')}`;
    mkdirSync(wandbDir, { recursive: true });
    process.env.WANDB_DIR = wandbDir;
    process.env.MLFLOW_TRACKING_URI = mlflowUri;
    process.env.MLFLOW_ALLOW_FILE_STORE = 'true';
    try {
      for (const [name, step] of [['model-0012', '1000'], ['model-0014', '2000']] as const) {
        const res = await check(name, path.join(dir, `series-${step}`), '--step', step, '--track-run', 'series-7b', '--track-project', 'pretrain', ...track);
        expect(codes(res).filter((c: string) => c === 'tracker-logged'), res.stderr).toHaveLength(2);
        expect(existsSync(path.join(dir, `series-${step}`, 'trackers'))).toBe(false);
      }
    } finally {
      delete process.env.WANDB_DIR;
      delete process.env.MLFLOW_TRACKING_URI;
    }
    const predicted = (step: string) => JSON.parse(readFileSync(path.join(dir, `series-${step}`, 'result.json'), 'utf8')).targets[0];
    const back = readBack(wandbDir, mlflowUri);
    // Two offline files (one per check) of one W&B run id, which `wandb sync` merges.
    expect(back.wandb).toHaveLength(2);
    expect(new Set(back.wandb.map((r: any) => r.id)).size).toBe(1);
    expect(back.wandb.map((r: any) => r.project)).toEqual(['pretrain', 'pretrain']);
    expect(back.mlflow).toHaveLength(1);
    const key = `aptpace/${predicted('1000').target}/predicted`;
    const history = back.mlflow[0].metrics[key];
    expect(history.map((h: number[]) => h[0])).toEqual([1000, 2000]);
    expect(history[0][1]).toBeCloseTo(predicted('1000').predicted, 12);
    expect(history[1][1]).toBeCloseTo(predicted('2000').predicted, 12);
    const wandbSteps = back.wandb.flatMap((r: any) => r.history.map((row: any) => [row._step, row[key]]));
    expect(wandbSteps).toEqual([
      [1000, expect.closeTo(predicted('1000').predicted, 12)],
      [2000, expect.closeTo(predicted('2000').predicted, 12)],
    ]);
  });

  it('report logs the whole series into one run, a point per checkpoint in series order', async () => {
    const out = path.join(dir, 'series-report');
    const res = await cli('report', '--store', checkStore, '--model-file', modelFile, '--out', out, '--track', 'mlflow', '--python', python, '--json');
    expect(res.json.findings.filter((f: any) => f.code === 'tracker-logged').map((f: any) => f.args.model), res.stderr).toEqual(['3 checkpoints']);
    const series = JSON.parse(readFileSync(path.join(out, 'series.json'), 'utf8'));
    expect(series.axis).toBe('order');
    const [ml] = readBack(path.join(out, 'trackers'), `file://${path.join(out, 'trackers', 'mlruns')}`).mlflow;
    expect(ml.name).toBe('series');
    const target = series.checkpoints[0].targets[0].target;
    expect(ml.metrics[`aptpace/${target}/predicted`]).toEqual(series.checkpoints.map((c: any, i: number) => [i, expect.closeTo(c.targets[0].predicted, 12)]));
    // A series applies no thresholds: no verdict is logged, only whether each prediction is vouched for.
    expect('aptpace/passed' in ml.metrics).toBe(false);
    expect(['vouched', 'flagged']).toContain(ml.tags[`aptpace/${target}/status`]);
  });

  it('a tracker that cannot log is a warning naming the reason; the verdict, exit code and report stand', async () => {
    const plain = await check('model-0013', path.join(dir, 'plain-2'));
    const missing = await check('model-0013', path.join(dir, 'no-python'), '--track', 'wandb', '--python', path.join(dir, 'no-such-python'));
    expect(missing.code).toBe(plain.code);
    const failed = missing.json.findings.find((f: any) => f.code === 'tracker-failed');
    expect(failed.severity).toBe('warning');
    expect(failed.args.reason).toMatch(/no-such-python/);
    expect(existsSync(path.join(dir, 'no-python', 'result.json'))).toBe(true);

    // A Python that cannot import the client (site-packages switched off).
    const isolated = path.join(dir, 'isolated-python');
    writeFileSync(isolated, `#!/bin/sh\nexec "${python}" -I -S "$@"\n`);
    chmodSync(isolated, 0o755);
    const noClient = await check('model-0013', path.join(dir, 'no-client'), '--track', 'mlflow', '--python', isolated);
    expect(noClient.code).toBe(plain.code);
    expect(noClient.json.findings.find((f: any) => f.code === 'tracker-failed').args.reason).toMatch(/client not installed/);
  });

  it('refuses, before any work, a `trackers` folder that links outside --out', async () => {
    const out = path.join(dir, 'linked');
    const elsewhere = path.join(dir, 'elsewhere');
    mkdirSync(out, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    symlinkSync(elsewhere, path.join(out, 'trackers'));
    const res = await cli('check', '--model-file', modelFile, '--model', 'model-0013', '--store', checkStore, '--out', out, ...track);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/output-outside-root/);
    expect(existsSync(path.join(out, 'result.json'))).toBe(false);
    const unknown = await cli('check', '--model-file', modelFile, '--model', 'model-0013', '--store', checkStore, '--out', path.join(dir, 'unknown'), '--track', 'wandb,neptune');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--track takes wandb, mlflow \(got neptune\)/);
    expect(existsSync(path.join(dir, 'unknown', 'result.json'))).toBe(false);
  });
});
