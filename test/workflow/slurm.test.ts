import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { harnessEnv, hasLmEval, inCi, repoRoot, venvBin } from '../helpers/env.js';
import { isRoot, slurmInstalled, startSlurm, type SlurmCluster } from '../helpers/slurm.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The Slurm array job that `aptpace plan` writes, submitted to a real single-node Slurm and run
 * with the real lm_eval (dummy model): every (model, shard) job runs and leaves harness logs.
 * In CI (.ci/run installs Slurm and runs as root) this never skips.
 */
const runnable = (slurmInstalled && isRoot && hasLmEval) || inCi;

describe.skipIf(!runnable)('run plan on a real Slurm cluster', () => {
  let cluster: SlurmCluster | undefined;
  afterAll(() => cluster?.stop());

  it('sbatch runs one array task per (model, shard) and each leaves its harness logs', async () => {
    const dir = tempDir('aptpace-slurm-');
    cluster = startSlurm(path.join(dir, 'cluster'));
    const work = path.join(dir, 'work');
    spawnSync('mkdir', ['-p', work]);
    writeFileSync(path.join(work, 'reference.yaml'), `format: aptpace-reference/1
suite: {path: ${path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures')}}
slurm: {gres: none, cpus_per_task: 1, time: "00:20:00"}
references:
  - {name: ref-a, model: dummy, model_args: pretrained=ref-a, extra_args: [--seed, "1"], scores: {swe-bench: 0.2}}
  - {name: ref-b, model: dummy, model_args: pretrained=ref-b, extra_args: [--seed, "2"], scores: {swe-bench: 0.3}}
  - {name: ref-c, model: dummy, model_args: pretrained=ref-c, extra_args: [--seed, "3"], scores: {swe-bench: 0.4}}
  - {name: ref-d, model: dummy, model_args: pretrained=ref-d, extra_args: [--seed, "4"], scores: {swe-bench: 0.5}}
checkpoints:
  - {name: step-100, model: dummy, model_args: pretrained=step-100, extra_args: [--seed, "5"], step: 100}
  - {name: step-200, model: dummy, model_args: pretrained=step-200, extra_args: [--seed, "6"], step: 200}
`);
    const cwd = process.cwd();
    process.chdir(work);
    try {
      // Two checkpoints × two shards keeps the harness time small; the array mechanism is the same for any count.
      const planned = await cli('plan', '--reference', 'reference.yaml', '--models', 'checkpoints', '--shards', '2', '--out', 'plans', '--quiet');
      expect(planned.code, planned.stderr).toBe(0); // the small population is a warning, not an error
    } finally {
      process.chdir(cwd);
    }
    const env = { ...harnessEnv, ...cluster.env, PATH: `${venvBin}:${process.env.PATH}` };
    const submit = spawnSync('sbatch', ['--wait', path.join('plans', 'slurm.sbatch')], { cwd: work, env, encoding: 'utf8', timeout: 900_000 });
    const logs = readdirSync(work).filter((f) => f.startsWith('slurm-')).map((f) => spawnSync('tail', ['-n', '20', path.join(work, f)], { encoding: 'utf8' }).stdout).join('\n');
    expect(submit.status, `${submit.stdout}\n${submit.stderr}\n${logs}`).toBe(0);
    for (const model of ['step-100', 'step-200']) {
      for (const shard of ['shard-1-of-2', 'shard-2-of-2']) {
        const out = path.join(work, 'runs', model, shard, model);
        expect(existsSync(out), out).toBe(true);
        const files = readdirSync(out);
        expect(files.some((f) => f.startsWith('results_')), `${out}: ${files}`).toBe(true);
        expect(files.some((f) => f.startsWith('samples_')), `${out}: ${files}`).toBe(true);
      }
    }
  }, 900_000);
});
