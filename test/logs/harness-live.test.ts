import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { fixtures, harnessEnv, hasLmEval, hasPython, inCi, lmEval } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { cellsOf, codes, PYTHON_REFERENCE, runPython } from './helpers.js';

/** The CI loop for real: run the harness on the project's own tasks, then ingest what it wrote. */
const RUNS: Array<{ model: string; seed: number; tasks: string; extra?: string[] }> = [
  { model: 'model-a', seed: 1, tasks: 'aptd_mc,aptd_mc_x,aptd_gen' },
  { model: 'model-b', seed: 2, tasks: 'aptd_mc,aptd_mc_x,aptd_gen' },
  { model: 'org/model-c:v1', seed: 3, tasks: 'aptd_mc,aptd_gen', extra: ['--limit', '5'] },
];

function runHarness(cwd: string, out: string, run: (typeof RUNS)[number]): Promise<void> {
  const args = ['--model', 'dummy', '--model_args', `pretrained=${run.model}`, '--include_path', '.', '--tasks', run.tasks, '--output_path', out, '--log_samples', '--seed', String(run.seed), ...(run.extra ?? [])];
  return new Promise((resolve, reject) => {
    const child = spawn(lmEval, args, { cwd, env: harnessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`lm_eval ${run.model} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

describe.skipIf(!hasLmEval && !inCi)('real lm_eval --model dummy on fixtures/logs/tasks, then ingest', () => {
  const work = tempDir('aptpace-harness-');
  const out = path.join(work, 'out');
  beforeAll(async () => {
    const tasks = path.join(work, 'tasks');
    cpSync(fixtures('logs', 'tasks'), tasks, { recursive: true });
    // Three processes at once: the harness spends most of its ~15 s importing, not computing.
    await Promise.all(RUNS.map((run) => runHarness(tasks, out, run)));
  });

  it('ingests all three runs with no errors and the expected coverage', async () => {
    const r = await ingestLogs(nodeVfs, [out]);
    expect(r.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(r.matrix.models.map((m) => m.name)).toEqual(['model-a', 'model-b', 'org/model-c:v1']);
    expect(r.coverage.tasks).toEqual(['aptd_gen', 'aptd_mc', 'aptd_mc_x']);
    expect(r.coverage.cells['org/model-c:v1']!.aptd_mc!.observed).toBe(5);
    expect(r.tally.rejected).toBe(0);
    expect(codes(r.findings)).not.toContain('task-hash-mismatch');
  });

  it.skipIf(!hasPython && !inCi)('matches an independent json.loads reading', async () => {
    const r = await ingestLogs(nodeVfs, [out]);
    const choice = { aptd_mc: ['acc', 'none'], aptd_mc_x: ['acc', 'none'], aptd_gen: ['exact_match', 'strict-match'] };
    expect(cellsOf(r.matrix)).toEqual(runPython(PYTHON_REFERENCE, [out, JSON.stringify(choice)]));
  });

  it('reproduces the committed fixture run for run (same harness, same seeds → same scores and hashes)', async () => {
    const live = await ingestLogs(nodeVfs, [out]);
    const committed = await ingestLogs(nodeVfs, [fixtures('logs', 'harness-output', 'out')], { pins: { 'model-a': '2026-11-29T08-32-35.157224' } });
    expect(cellsOf(live.matrix)).toEqual(cellsOf(committed.matrix));
    expect(live.matrix.instances).toEqual(committed.matrix.instances);
  });
});
