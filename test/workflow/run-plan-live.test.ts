import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliIn } from '../helpers/cli.js';
import { harnessEnv, hasLmEval, inCi, python, repoRoot } from '../helpers/env.js';
import { isRoot, slurmInstalled, startSlurm, type SlurmCluster } from '../helpers/slurm.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A run plan as a cluster team runs it: the harness command is a wrapper that registers its own
 * model class (test/workflow/harness_wrapper.py), with an environment variable and a setup line
 * from the reference file. One job fails; the rerun runs that job only. Once with run.sh and the
 * real lm_eval, once through a real single-node Slurm (CI installs it and runs as root).
 */
const WRAPPER = path.join(repoRoot, 'test', 'workflow', 'harness_wrapper.py');
const FAILING = 'cp-b/shard-2-of-2';

async function planIn(work: string): Promise<void> {
  mkdirSync(work, { recursive: true });
  const ref = (name: string, seed: number) => `  - {name: ${name}, model: team-echo, model_args: pretrained=org/${name}, extra_args: [--seed, "${seed}"], scores: {swe-bench: 0.${seed}}}`;
  writeFileSync(
    path.join(work, 'reference.yaml'),
    `format: aptpace-reference/1
suite: {path: ${JSON.stringify(path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures'))}}
harness:
  command: [${JSON.stringify(python)}, ${JSON.stringify(WRAPPER)}]
  env: {TEAM_TAG: team-1}
  setup: echo setup >> setup.log
slurm: {gres: none, cpus_per_task: 1, time: "00:20:00"}
references:
${[ref('ref-a', 1), ref('ref-b', 2), ref('ref-c', 3), ref('ref-d', 4)].join('\n')}
checkpoints:
  - {name: cp-a, model: team-echo, model_args: pretrained=org/ckpt, extra_args: [--seed, "5"], step: 100}
  - {name: cp-b, model: team-echo, model_args: pretrained=org/ckpt, extra_args: [--seed, "6"], step: 200}
`,
  );
  const planned = await cliIn(work, 'plan', '--reference', 'reference.yaml', '--models', 'checkpoints', '--shards', '2', '--out', 'plans', '--quiet');
  expect(planned.code, planned.stderr).toBe(0);
  writeFileSync(path.join(work, 'fail-job'), FAILING);
}

const calls = (work: string) => readFileSync(path.join(work, 'calls.log'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
const complete = (dir: string) => existsSync(dir) && readdirSync(dir, { recursive: true }).some((f) => path.basename(String(f)).startsWith('results_'));
const OUTPUTS = ['runs/cp-a/shard-1-of-2', 'runs/cp-a/shard-2-of-2', 'runs/cp-b/shard-1-of-2', 'runs/cp-b/shard-2-of-2'];

describe.skipIf(!hasLmEval && !inCi)('run.sh with a custom harness command', () => {
  it('runs every job through the wrapper, reports the failed one, and reruns only it', async () => {
    const work = path.join(tempDir('aptpace-runsh-'), 'work');
    await planIn(work);
    const first = spawnSync('bash', ['plans/run.sh'], { cwd: work, env: harnessEnv, encoding: 'utf8', timeout: 900_000 });
    expect(first.status, first.stderr.slice(-3000)).toBe(1);
    expect(first.stderr).toContain('failed job(s): 3; rerun them with: bash plans/run.sh 3');
    expect(calls(work)).toEqual(OUTPUTS.map((o) => [o, 'team-1']));
    expect(readFileSync(path.join(work, 'setup.log'), 'utf8')).toBe('setup\n');
    expect(OUTPUTS.map((o) => complete(path.join(work, o)))).toEqual([true, true, true, false]);

    rmSync(path.join(work, 'fail-job'));
    const second = spawnSync('bash', ['plans/run.sh'], { cwd: work, env: harnessEnv, encoding: 'utf8', timeout: 900_000 });
    expect(second.status, second.stderr.slice(-3000)).toBe(0);
    expect(second.stderr).toContain('1 job(s) ran, 3 skipped as complete, 0 failed');
    expect(calls(work).slice(4)).toEqual([[`runs/${FAILING}`, 'team-1']]);
    expect(OUTPUTS.every((o) => complete(path.join(work, o)))).toBe(true);
  }, 900_000);
});

describe.skipIf(!((slurmInstalled && isRoot && hasLmEval) || inCi))('slurm.sbatch with a custom harness command', () => {
  let cluster: SlurmCluster | undefined;
  afterAll(() => cluster?.stop());

  it('runs one array task per job through the wrapper; resubmitting reruns only the failed job', async () => {
    const dir = tempDir('aptpace-slurm-resume-');
    cluster = startSlurm(path.join(dir, 'cluster'));
    const work = path.join(dir, 'work');
    await planIn(work);
    const env = { ...harnessEnv, ...cluster.env };
    const logs = () => readdirSync(work).filter((f) => f.startsWith('slurm-')).map((f) => readFileSync(path.join(work, f), 'utf8').slice(-1500)).join('\n');
    const first = spawnSync('sbatch', ['--wait', 'plans/slurm.sbatch'], { cwd: work, env, encoding: 'utf8', timeout: 900_000 });
    expect(first.status, `${first.stderr}\n${logs()}`).not.toBe(0); // one array task failed
    expect(calls(work).map((c) => c[0]).sort()).toEqual(OUTPUTS);
    expect(calls(work).every((c) => c[1] === 'team-1')).toBe(true);
    expect(OUTPUTS.map((o) => complete(path.join(work, o)))).toEqual([true, true, true, false]);

    rmSync(path.join(work, 'fail-job'));
    const second = spawnSync('sbatch', ['--wait', 'plans/slurm.sbatch'], { cwd: work, env, encoding: 'utf8', timeout: 900_000 });
    expect(second.status, `${second.stderr}\n${logs()}`).toBe(0);
    expect(calls(work).slice(4)).toEqual([[`runs/${FAILING}`, 'team-1']]);
    expect(OUTPUTS.every((o) => complete(path.join(work, o)))).toBe(true);
  }, 900_000);
});
