import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { harnessEnv, hasLmEval, hasSharedData, inCi, shared, venvBin } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * The pretraining team's path, end to end with the real harness (dummy models, no GPU):
 * real trajectories → build → emit → reference file → plan with 3 shards → the generated
 * shell plan runs 4 reference "models" → ingest merges the shards → fit on that reference
 * population with its agentic scores → proxy-only suite → a new checkpoint runs only the proxy
 * documents → check predicts it with every proxy instance present.
 */
const runnable = (hasLmEval && hasSharedData) || inCi;

function countDocs(suiteDir: string): number {
  const data = path.join(suiteDir, 'data');
  return readdirSync(data).filter((f) => f.endsWith('.test.jsonl')).reduce((n, f) => n + readFileSync(path.join(data, f), 'utf8').split('\n').filter((l) => l.trim()).length, 0);
}

function promptChars(suiteDir: string): number {
  const data = path.join(suiteDir, 'data');
  let chars = 0;
  for (const f of readdirSync(data).filter((n) => n.endsWith('.test.jsonl'))) {
    for (const line of readFileSync(path.join(data, f), 'utf8').split('\n').filter((l) => l.trim())) chars += String(JSON.parse(line).query ?? '').length;
  }
  return chars;
}

describe.skipIf(!runnable)('workflow: my suite → reference population → proxy suite → checkpoint prediction', () => {
  it('runs the whole path with sharded harness runs and a proxy-only checkpoint run', async () => {
    const dir = tempDir('aptpace-workflow-');
    const at = (...p: string[]) => path.join(dir, ...p);
    const ok = (r: { code: number; stderr: string }, what: string) => expect(r.code, `${what}\n${r.stderr.slice(-3000)}`).toBe(0);

    ok(await cli('build', shared('trajectories', 'deep-research', 'aptbench_summ_ans_en.head120.jsonl'), '--kinds', 'dr_plan_mcq,dr_answer_tc', '--seed', '0', '--out', at('questions.jsonl'), '--quiet'), 'build');
    ok(await cli('emit', at('questions.jsonl'), '--suite', 'team_suite', '--out', at('suite'), '--quiet'), 'emit');

    const refs = [1, 2, 3, 4].map((i) => `  - {name: ref-${i}, model: dummy, model_args: pretrained=ref-${i}, extra_args: [--seed, "${i}"], scores: {swe-bench: 0.${i + 1}, gaia: 0.${9 - i}}}`);
    writeFileSync(at('reference.yaml'), `format: aptpace-reference/1\nsuite: {path: suite}\nreferences:\n${refs.join('\n')}\ncheckpoints:\n  - {name: step-500, model: dummy, model_args: pretrained=step-500, extra_args: [--seed, "9"], step: 500}\n`);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      ok(await cli('plan', '--reference', 'reference.yaml', '--models', 'references', '--shards', '3', '--out', 'plans', '--quiet'), 'plan');
    } finally {
      process.chdir(cwd);
    }
    const jobs = readFileSync(at('plans', 'jobs.tsv'), 'utf8').trim().split('\n').slice(1);
    expect(jobs).toHaveLength(12);
    // Two jobs at a time, as a small cluster would.
    const env = { ...harnessEnv, PATH: `${venvBin}:${process.env.PATH}` };
    const run = spawnSync('bash', ['-c', `seq 0 ${jobs.length - 1} | xargs -P 2 -I{} bash plans/run.sh {}`], { cwd: dir, env, encoding: 'utf8', timeout: 1_800_000 });
    expect(run.status, run.stderr.slice(-3000)).toBe(0);

    process.chdir(dir);
    let stored;
    try {
      stored = await cli('ingest', 'runs', '--targets', 'plans/targets.csv', '--out', 'store', '--json', '--quiet');
    } finally {
      process.chdir(cwd);
    }
    ok(stored, 'ingest');
    const full = countDocs(at('suite'));
    expect(stored.json.data.shape).toEqual([4, full]); // every document of every shard, once per model
    expect(stored.json.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);

    ok(await cli('fit', '--store', at('store'), '--suite', at('suite'), '--budget', '12', '--bootstrap', '20', '--out', at('fit'), '--quiet'), 'fit');
    const model = JSON.parse(readFileSync(at('fit', 'model.json'), 'utf8'));
    const proxyDocs = countDocs(at('fit', 'proxy-suite'));
    expect(proxyDocs).toBe(model.proxy.length);
    expect(proxyDocs).toBeLessThan(full);

    const ckpt = spawnSync(path.join(venvBin, 'lm_eval'), ['--model', 'dummy', '--model_args', 'pretrained=step-500', '--include_path', at('fit', 'proxy-suite'), '--tasks', 'team_suite', '--log_samples', '--output_path', at('runs-ckpt'), '--seed', '9'], { cwd: dir, env, encoding: 'utf8', timeout: 600_000 });
    expect(ckpt.status, ckpt.stderr.slice(-3000)).toBe(0);
    const check = await cli('check', '--model-file', at('fit', 'model.json'), '--model', 'step-500', '--logs', at('runs-ckpt'), '--out', at('report'), '--allow-unproven', '--json', '--quiet');
    expect([0, 1]).toContain(check.code);
    const targets = check.json.data.targets as Array<{ target: string; predicted: number; missing?: number }>;
    expect(targets.map((t) => t.target).sort()).toEqual(['gaia', 'swe-bench']);
    for (const t of targets) expect(Number.isFinite(t.predicted)).toBe(true);
    const codes = check.json.findings.map((f: { code: string }) => f.code);
    expect(codes).not.toContain('pace-proxy-missing-instances');
    expect(codes).not.toContain('check-missing-too-high');
    expect(existsSync(at('report', 'report.html'))).toBe(true);

    // The cost of a checkpoint: the proxy documents against the whole suite.
    const cost = { documents: proxyDocs / full, promptChars: promptChars(at('fit', 'proxy-suite')) / promptChars(at('suite')) };
    writeFileSync(path.join(dir, 'cost.json'), JSON.stringify(cost));
    console.log(`proxy-only run: ${proxyDocs}/${full} documents (${(100 * cost.documents).toFixed(1)}%), ${(100 * cost.promptChars).toFixed(1)}% of prompt characters`);
  }, 1_800_000);
});
