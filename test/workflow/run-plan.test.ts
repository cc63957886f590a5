import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { buildRunPlan, runFolderName, shardSuite, shellQuote, type SuiteTasks } from '../../generator/core/workflow/run-plan.js';
import { tempDir } from '../helpers/tmp.js';

const suite: SuiteTasks = { includePath: 'suites/s', tasks: [{ task: 'a', documents: 5 }, { task: 'b', documents: 1 }, { task: 'c', documents: 7 }] };

describe('shards', () => {
  it('puts every document in exactly one shard, in near-equal contiguous parts, for every shard count', () => {
    const total = 13;
    for (let n = 1; n <= total; n++) {
      const { shards, findings } = shardSuite(suite, n);
      expect(findings).toEqual([]);
      expect(shards).toHaveLength(n);
      const seen = new Map<string, number>();
      for (const s of shards) {
        expect(Object.values(s.samples).every((l) => l.length > 0)).toBe(true); // an empty list would make the harness run the whole task
        for (const [task, ids] of Object.entries(s.samples)) for (const i of ids) seen.set(`${task}/${i}`, (seen.get(`${task}/${i}`) ?? 0) + 1);
        expect(s.documents).toBeGreaterThanOrEqual(Math.floor(total / n));
        expect(s.documents).toBeLessThanOrEqual(Math.ceil(total / n));
      }
      expect(seen.size).toBe(total);
      expect([...seen.values()].every((c) => c === 1)).toBe(true);
    }
    expect(shardSuite(suite, 14).findings.map((f) => f.code)).toEqual(['plan-shards-too-many']);
  });

  it('writes one job per (model, shard) naming only the shard\'s tasks, and scripts bash accepts', () => {
    const models = [
      { name: "it's/odd name", model: 'hf', model_args: 'pretrained=org/x,dtype=bfloat16', extra_args: ['--seed', '1'] },
      { name: 'b', model: 'vllm', model_args: 'pretrained=/ckpt/b', extra_args: [] },
    ];
    const { plan } = buildRunPlan({ models, suite, shards: 2, runsDir: 'runs', planDir: 'plans', harness: { batch_size: 'auto', extra_args: [] } });
    const odd = runFolderName("it's/odd name");
    expect(odd).toMatch(/^it_s_odd_name-[0-9a-f]{8}$/);
    expect(plan!.jobs.map((j) => `${j.model}#${j.shard}:${j.outputPath}`)).toEqual([
      `it's/odd name#1:runs/${odd}/shard-1-of-2`,
      `it's/odd name#2:runs/${odd}/shard-2-of-2`,
      'b#1:runs/b/shard-1-of-2',
      'b#2:runs/b/shard-2-of-2',
    ]);
    const tasksOf = (argv: string[]) => argv[argv.indexOf('--tasks') + 1];
    expect(plan!.jobs.map((j) => tasksOf(j.argv))).toEqual(['a,b', 'c', 'a,b', 'c']);
    expect(JSON.parse(plan!.files['shards/shard-1-of-2.json']!)).toEqual({ a: [0, 1, 2, 3, 4], b: [0] });
    for (const script of ['run.sh', 'slurm.sbatch']) {
      const check = spawnSync('bash', ['-n'], { input: plan!.files[script], encoding: 'utf8' });
      expect(check.status, check.stderr).toBe(0);
    }
    // The shell script's job N runs exactly the plan's argv for job N.
    const echo = spawnSync('bash', ['-c', `lm_eval() { printf '%s\\n' "$@"; }; export -f lm_eval; ${'bash -s 0'}`], { input: plan!.files['run.sh'], encoding: 'utf8' });
    expect(echo.status, echo.stderr).toBe(0);
    expect(echo.stdout.trim().split('\n')).toEqual(plan!.jobs[0]!.argv.slice(1));
    const noJob = spawnSync('bash', ['-s', '99'], { input: plan!.files['run.sh'], encoding: 'utf8' });
    expect(noJob.status).toBe(2);
  });

  it('quotes shell arguments safely', () => {
    for (const s of ["a b", "it's", '$(rm -rf /)', '`x`', 'plain=1,2', '']) {
      const r = spawnSync('bash', ['-c', `printf '%s' ${shellQuote(s)}`], { encoding: 'utf8' });
      expect(r.stdout).toBe(s);
    }
  });

  it('gives every model its own run folder: a/b and a_b never share one, and a name keeps its folder', () => {
    expect(runFolderName('a_b')).toBe('a_b');
    expect(runFolderName('a/b')).not.toBe('a_b');
    expect(runFolderName('a/b')).toBe(runFolderName('a/b'));
    const models = ['a/b', 'a_b', 'a b', 'A_b'].map((name) => ({ name, model: 'hf', model_args: `pretrained=${name}`, extra_args: [] }));
    const { plan } = buildRunPlan({ models, suite, shards: 1, runsDir: 'runs', planDir: 'plans', harness: { extra_args: [] } });
    expect(new Set(plan!.jobs.map((j) => j.outputPath)).size).toBe(4);
    // ingest --mapping plans/model-names.csv keys each job's folder to the reference name
    expect(plan!.files['model-names.csv']!.split('\n').slice(0, 3)).toEqual(['alias,canonical', `runs/${runFolderName('a/b')},a/b`, 'runs/a_b,a_b']);
  });

  it('balances shards by estimated cost, so the generation tasks do not all land in one shard', () => {
    // 40 cheap multiple-choice documents, then 32 generation documents 5× the cost each.
    const tasks = [{ task: 'mcq', documents: 40 }, { task: 'gen', documents: 32 }];
    const mixed: SuiteTasks = { includePath: 's', tasks: [{ ...tasks[0]!, costs: Array(40).fill(100) }, { ...tasks[1]!, costs: Array(32).fill(500) }] };
    const { shards } = shardSuite(mixed, 4);
    const spread = (costs: number[]) => Math.max(...costs) / Math.min(...costs);
    expect(spread(shards.map((s) => s.cost))).toBeLessThan(1.15);
    expect(shards.reduce((n, s) => n + s.documents, 0)).toBe(72);
    expect(shards.filter((s) => s.samples.gen).length).toBe(4);
    // By document count, two shards would hold every generation document: 5× the cost of the others.
    const costOf = (s: { samples: Record<string, number[]> }) => (s.samples.mcq?.length ?? 0) * 100 + (s.samples.gen?.length ?? 0) * 500;
    const byCount = shardSuite({ includePath: 's', tasks }, 4).shards;
    expect(spread(byCount.map(costOf))).toBeGreaterThan(4);
    // Every shard keeps at least one document even when one document outweighs all the rest.
    const lopsided = shardSuite({ includePath: 's', tasks: [{ task: 't', documents: 4, costs: [1e6, 1, 1, 1] }] }, 4).shards;
    expect(lopsided.map((s) => s.documents)).toEqual([1, 1, 1, 1]);
  });
});

describe('run.sh', () => {
  // A stand-in harness command: records each call, writes a results file, fails when told to.
  const FAKE = `#!/usr/bin/env bash
out=""; while [ $# -gt 0 ]; do [ "$1" = --output_path ] && out="$2"; shift; done
echo "$out $TEAM_TAG" >> calls.log
if [ -f fail-job ] && grep -qF -- "$out" fail-job; then exit 3; fi
mkdir -p "$out/model" && echo '{}' > "$out/model/results_2026-01-01T00-00-00.json"
`;
  function setUp(setup?: string) {
    const dir = tempDir('aptpace-runsh-unit-');
    writeFileSync(path.join(dir, 'fake-harness'), FAKE, { mode: 0o755 });
    const models = ['m1', 'm2'].map((name) => ({ name, model: 'hf', model_args: `pretrained=${name}`, extra_args: [] }));
    const { plan } = buildRunPlan({
      models, suite, shards: 2, runsDir: 'runs', planDir: 'plans',
      harness: { extra_args: [], command: [path.join(dir, 'fake-harness')], env: [['TEAM_TAG', "it's set"]], ...(setup ? { setup } : {}) },
    });
    mkdirSync(path.join(dir, 'plans'));
    writeFileSync(path.join(dir, 'plans', 'run.sh'), plan!.files['run.sh']!);
    const run = (...args: string[]) => spawnSync('bash', ['plans/run.sh', ...args], { cwd: dir, encoding: 'utf8' });
    const calls = () => readFileSync(path.join(dir, 'calls.log'), 'utf8').trim().split('\n');
    return { dir, run, calls };
  }

  it('runs the harness command with the environment and setup line, collects failures, and reruns only incomplete jobs', () => {
    const { dir, run, calls } = setUp('echo "setup ran" >> setup.log');
    writeFileSync(path.join(dir, 'fail-job'), 'runs/m1/shard-2-of-2\nruns/m2/shard-1-of-2\n');
    const first = run();
    expect(first.status, first.stderr).toBe(1);
    expect(first.stderr).toContain('2 job(s) ran, 0 skipped as complete, 2 failed');
    expect(first.stderr).toContain('failed job(s): 1 2; rerun them with: bash plans/run.sh 1 2');
    expect(calls()).toEqual(['runs/m1/shard-1-of-2', 'runs/m1/shard-2-of-2', 'runs/m2/shard-1-of-2', 'runs/m2/shard-2-of-2'].map((o) => `${o} it's set`));
    expect(readFileSync(path.join(dir, 'setup.log'), 'utf8')).toBe('setup ran\n');

    writeFileSync(path.join(dir, 'fail-job'), '');
    const second = run();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain('2 job(s) ran, 2 skipped as complete, 0 failed');
    expect(calls().slice(4)).toEqual(['runs/m1/shard-2-of-2 it\'s set', 'runs/m2/shard-1-of-2 it\'s set']);

    expect(run().stderr).toContain('0 job(s) ran, 4 skipped as complete');
    const redo = run('--redo', '3');
    expect(redo.status).toBe(0);
    expect(calls().slice(6)).toEqual(["runs/m2/shard-2-of-2 it's set"]);
    expect(run('7').status).toBe(2);
    expect(run('x').status).toBe(2);
  });

  it('stops before any job when the setup line fails', () => {
    const { run } = setUp('false');
    const r = run();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the setup line failed');
  });
});
