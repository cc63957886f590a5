import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliIn } from '../helpers/cli.js';
import { repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * run.sh (and slurm.sbatch through it) refuses a plan whose files are not the set `aptpace plan`
 * wrote, naming the file, before any job runs. Real bash; the harness command only records its calls.
 */
const root = tempDir('aptpace-plan-set-');
const pristine = path.join(root, 'pristine');

beforeAll(async () => {
  mkdirSync(pristine, { recursive: true });
  writeFileSync(
    path.join(pristine, 'reference.yaml'),
    `format: aptpace-reference/1
suite: {path: ${JSON.stringify(path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures'))}}
harness:
  command: [bash, -c, 'echo "$*" >> calls.log', harness]
references:
${['a', 'b', 'c', 'd'].map((m, i) => `  - {name: ref-${m}, model: hf, model_args: pretrained=org/ref-${m}, scores: {swe-bench: 0.${i + 1}}}`).join('\n')}
checkpoints:
  - {name: cp-a, model: hf, model_args: pretrained=org/ckpt, step: 100}
`,
  );
  const planned = await cliIn(pristine, 'plan', '--reference', 'reference.yaml', '--models', 'checkpoints', '--shards', '2', '--out', 'plans', '--quiet');
  expect(planned.code, planned.stderr).toBe(0);
}, 120_000);

function copy(name: string): string {
  const work = path.join(root, name);
  cpSync(pristine, work, { recursive: true });
  return work;
}
const runSh = (work: string) => spawnSync('bash', ['plans/run.sh'], { cwd: work, encoding: 'utf8', timeout: 60_000 });
const ran = (work: string) => existsSync(path.join(work, 'calls.log'));
const manifest = (work: string) => path.join(work, 'plans', '.aptpace-set.plan.json');

describe('run.sh checks the plan set before running', () => {
  it('runs an intact plan', () => {
    const work = copy('intact');
    const r = runSh(work);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'calls.log'), 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it.each([
    ['an edited jobs.tsv', (w: string) => appendFileSync(path.join(w, 'plans', 'jobs.tsv'), '9\textra\n'), 'plans/jobs.tsv is not the file aptpace plan wrote'],
    ['an edited run.sh', (w: string) => appendFileSync(path.join(w, 'plans', 'run.sh'), '# edited\n'), 'plans/run.sh is not the file aptpace plan wrote'],
    ['a shard from another plan', (w: string) => writeFileSync(path.join(w, 'plans', 'shards', 'shard-1-of-2.json'), '{}\n'), 'plans/shards/shard-1-of-2.json is not the file aptpace plan wrote'],
    ['a missing slurm.sbatch', (w: string) => rmSync(path.join(w, 'plans', 'slurm.sbatch')), 'plans/slurm.sbatch is missing from the plan set'],
    ['a plan torn while being written', (w: string) => writeFileSync(manifest(w), '{"format":"aptpace-output-set/1","set":"plan","state":"writing","files":{}}\n'), 'was being written (state: writing)'],
    ['a missing manifest', (w: string) => rmSync(manifest(w)), '.aptpace-set.plan.json is missing'],
    ['another command\'s manifest', (w: string) => writeFileSync(manifest(w), readFileSync(manifest(w), 'utf8').replace('"set": "plan"', '"set": "fit"')), 'is not a plan\'s manifest'],
  ])('refuses %s, naming the file, and runs nothing', (_, tear, message) => {
    const work = copy(_.replace(/\W+/g, '-'));
    tear(work);
    const r = runSh(work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
    expect(ran(work)).toBe(false);
  });

  it('slurm.sbatch refuses an edited plan through run.sh', () => {
    const work = copy('slurm-edited');
    appendFileSync(path.join(work, 'plans', 'jobs.tsv'), '\n');
    const r = spawnSync('bash', ['plans/slurm.sbatch'], { cwd: work, encoding: 'utf8', timeout: 60_000, env: { ...process.env, SLURM_SUBMIT_DIR: work, SLURM_ARRAY_TASK_ID: '0' } });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('plans/jobs.tsv is not the file aptpace plan wrote');
    expect(ran(work)).toBe(false);
    const intact = copy('slurm-intact');
    const ok = spawnSync('bash', ['plans/slurm.sbatch'], { cwd: intact, encoding: 'utf8', timeout: 60_000, env: { ...process.env, SLURM_SUBMIT_DIR: intact, SLURM_ARRAY_TASK_ID: '0' } });
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(path.join(intact, 'calls.log'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('APTPACE_PLAN_UNCHECKED=1 runs an edited plan anyway', () => {
    const work = copy('unchecked');
    appendFileSync(path.join(work, 'plans', 'jobs.tsv'), '\n');
    const r = spawnSync('bash', ['plans/run.sh'], { cwd: work, encoding: 'utf8', timeout: 60_000, env: { ...process.env, APTPACE_PLAN_UNCHECKED: '1' } });
    expect(r.status, r.stderr).toBe(0);
    expect(ran(work)).toBe(true);
  });
});
