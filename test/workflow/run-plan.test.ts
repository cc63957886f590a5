import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildRunPlan, shardSuite, shellQuote, type SuiteTasks } from '../../generator/core/workflow/run-plan.js';

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
    expect(plan!.jobs.map((j) => `${j.model}#${j.shard}:${j.outputPath}`)).toEqual([
      "it's/odd name#1:runs/it_s_odd_name/shard-1-of-2",
      "it's/odd name#2:runs/it_s_odd_name/shard-2-of-2",
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
});
