import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { harnessEnv, hasLmEval, inCi, lmEval, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { cellsOf, codes, copyTree } from './helpers.js';

/**
 * The real harness (`--model dummy`) on our own committed suite (dist-tasks): instances are
 * keyed by question id, so a re-emitted suite with one more question keeps every id, and
 * shards of one model — a sharded suite (`<task>__shard<i>of<N>`) or several `--samples`
 * runs — merge into one run with coverage checked.
 */
const TASK = 'aptpace_swe_plan_mcq';
const SUITE = path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures');
const dataOf = (suite: string) => path.join(suite, 'data', `${TASK}.test.jsonl`);

function harness(cwd: string, out: string, model: string, tasks: string, extra: string[] = []): Promise<void> {
  const args = ['--model', 'dummy', '--model_args', `pretrained=${model}`, '--include_path', '.', '--tasks', tasks, '--output_path', out, '--log_samples', '--seed', '1', ...extra];
  return new Promise((resolve, reject) => {
    const child = spawn(lmEval, args, { cwd, env: harnessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`lm_eval ${model} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

describe.skipIf(!hasLmEval && !inCi)('real lm_eval on our suite: question-id keys and shard merge', () => {
  const work = tempDir('aptpace-suite-live-');
  const out = path.join(work, 'out');
  const suite = path.join(work, 'suite');
  const ext = path.join(work, 'suite-ext');
  const sharded = path.join(work, 'suite-sharded');
  let qids: string[] = [];
  let extraId = '';
  beforeAll(async () => {
    cpSync(SUITE, suite, { recursive: true });
    // Re-emitted with one more question placed first: every other question's doc_id shifts by one.
    cpSync(SUITE, ext, { recursive: true });
    const rows = readFileSync(dataOf(suite), 'utf8').split('\n').filter(Boolean);
    qids = rows.map((r) => JSON.parse(r).id as string);
    const extra = { ...JSON.parse(rows[0]!), id: 'ffffffffffffff01' };
    extra.query = `${extra.query}\nA question added later.`;
    extraId = extra.id;
    writeFileSync(dataOf(ext), [JSON.stringify(extra), ...rows].join('\n') + '\n');
    // A sharded suite: the task's six questions in two shard tasks of three.
    cpSync(SUITE, sharded, { recursive: true });
    const yaml = readFileSync(path.join(sharded, `${TASK}.yaml`), 'utf8');
    rmSync(path.join(sharded, `${TASK}.yaml`));
    rmSync(path.join(sharded, '_aptpace_fixtures.yaml'));
    for (const [i, part] of [rows.slice(0, 3), rows.slice(3)].entries()) {
      const name = `${TASK}__shard${i + 1}of2`;
      writeFileSync(path.join(sharded, 'data', `${name}.test.jsonl`), part.join('\n') + '\n');
      writeFileSync(path.join(sharded, `${name}.yaml`), yaml.replace(`task: "${TASK}"`, `task: "${name}"`).replace(`data/${TASK}.test.jsonl`, `data/${name}.test.jsonl`));
    }
    // Hand-made variants are not the set emit wrote: without its manifest the suite's loader
    // takes them as they are (with it, it refuses them as edited, which is the point of it).
    for (const variant of [ext, sharded]) rmSync(path.join(variant, 'aptpace-manifest.json'), { force: true });
    await Promise.all([
      harness(suite, out, 'm-full', TASK),
      harness(ext, out, 'm-ext', TASK),
      harness(sharded, out, 'm-sharded', `${TASK}__shard1of2,${TASK}__shard2of2`),
      harness(suite, out, 'm-samples', TASK, ['--samples', JSON.stringify({ [TASK]: [0, 1, 2] })]),
      harness(suite, out, 'm-samples', TASK, ['--samples', JSON.stringify({ [TASK]: [3, 4, 5] })]),
      harness(suite, out, 'm-gap', TASK, ['--samples', JSON.stringify({ [TASK]: [0, 1] })]),
      harness(suite, out, 'm-gap', TASK, ['--samples', JSON.stringify({ [TASK]: [4, 5] })]),
    ]);
  }, 600_000);

  const keysOf = (r: Awaited<ReturnType<typeof ingestLogs>>, model: string) => Object.keys(cellsOf(r.matrix)[model] ?? {}).sort();

  it('keys by question id: a suite re-emitted with one more question keeps every id and hash; shards and --samples runs merge', async () => {
    const r = await ingestLogs(nodeVfs, [out]);
    const want = qids.map((q) => `${TASK}/${q}`).sort();
    expect(keysOf(r, 'm-full')).toEqual(want);
    expect(keysOf(r, 'm-ext')).toEqual([...want, `${TASK}/${extraId}`].sort());
    expect(keysOf(r, 'm-sharded')).toEqual(want);
    expect(keysOf(r, 'm-samples')).toEqual(want);
    // Same documents under the same ids: no model disagrees on any doc's hashes.
    expect(codes(r.findings)).not.toContain('instance-hash-conflict');
    expect(codes(r.findings)).not.toContain('prompt-hash-conflict');
    for (const inst of r.matrix.instances) expect(inst.question_id).toBe(inst.doc_id);
    // The store joins back to the suite's own rows.
    const emitted = new Set(qids.concat(extraId));
    expect(r.matrix.instances.every((i) => emitted.has(i.question_id!))).toBe(true);
    // m-gap's two --samples runs cover 4 of 6 documents: a gap, reported as an error.
    expect(r.findings.find((f) => f.code === 'shard-gap')!).toMatchObject({ severity: 'error', args: { model: 'm-gap', task: TASK, covered: 4, total: 6 } });
    expect(r.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['shard-gap']);
  });

  it('a missing shard is an error', async () => {
    const root = copyTree(out);
    const dir = path.join(root, 'm-sharded');
    for (const f of readdirSync(dir)) if (f.startsWith(`samples_${TASK}__shard2of2_`)) rmSync(path.join(dir, f));
    const r = await ingestLogs(nodeVfs, [dir]);
    expect(r.findings.find((f) => f.code === 'shard-missing')!).toMatchObject({ severity: 'error', args: { model: 'm-sharded', task: TASK, missing: `${TASK}__shard2of2` } });
  });

  it('overlapping shards are an error and each document is kept once', async () => {
    const root = copyTree(out);
    const dir = path.join(root, 'm-samples');
    // A third --samples run repeating the first one's documents, under a later timestamp.
    const first = readdirSync(dir).filter((f) => f.startsWith('results_')).sort()[0]!;
    const ts = first.slice('results_'.length, -'.json'.length);
    const later = '2099-01-01T00-00-00.000001';
    mkdirSync(path.join(root, 'again'));
    for (const f of readdirSync(dir)) if (f.includes(ts)) cpSync(path.join(dir, f), path.join(root, 'again', f.replace(ts, later)));
    const r = await ingestLogs(nodeVfs, [dir, path.join(root, 'again')]);
    expect(r.findings.find((f) => f.code === 'shard-overlap')!).toMatchObject({ severity: 'error', args: { model: 'm-samples', task: TASK, count: 3 } });
    expect(keysOf(r, 'm-samples')).toHaveLength(6);
  });
});
