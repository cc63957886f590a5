import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { harnessEnv, hasLmEval, hasSharedData, inCi, shared, venvBin } from '../helpers/env.js';
import { sharedHarnessBin } from '../helpers/harness-cache.js';
import { tempDir } from '../helpers/tmp.js';
import { PACE_METRIC_FIELDS } from '../../generator/core/workflow/proxy-suite-pace.js';

/**
 * The pretraining team's path, end to end with the real harness (dummy models, no GPU):
 * real trajectories → build → emit → reference file → plan with 3 shards → the generated
 * shell plan runs 4 reference "models" → ingest merges the shards → fit on that reference
 * population with its agentic scores → proxy-only suite → a new checkpoint runs only the proxy
 * documents → check predicts it with every proxy instance present, and the harness's own results
 * table and JSON show the same predictions and intervals (also with a proxy document left out).
 */
const runnable = (hasLmEval && hasSharedData) || inCi;

function countDocs(suiteDir: string): number {
  const data = path.join(suiteDir, 'data');
  return readdirSync(data).filter((f) => f.endsWith('.test.jsonl')).reduce((n, f) => n + readFileSync(path.join(data, f), 'utf8').split('\n').filter((l) => l.trim()).length, 0);
}

type Forecast = { target: string; predicted: number | null; intervals: Array<{ level: number; lower: number; upper: number }>; concerns: string[]; missingInstances: number };

/** The group's `pace_*` metrics from lm-eval's results JSON (Python writes NaN, which JSON.parse refuses). */
function harnessPredictions(runDir: string, group: string): Record<string, number | null> {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (/^results_.*\.json$/.test(e.name)) files.push(path.join(d, e.name));
    }
  };
  walk(runDir);
  expect(files).toHaveLength(1);
  const results = JSON.parse(readFileSync(files[0]!, 'utf8').replace(/\bNaN\b/g, 'null')).results;
  return Object.fromEntries(Object.entries(results[group] as Record<string, unknown>).filter(([k]) => k.startsWith('pace_') && !k.includes('_stderr')).map(([k, v]) => [k, v as number | null]));
}

/** Rows of the printed table: metric name → the values printed for it (4 decimals). */
function tableValues(stdout: string, metric: string): number[] {
  return stdout.split('\n').map((l) => l.split('|').map((c) => c.trim())).filter((c) => c.length > 7 && c[5] === metric).map((c) => Number(c[7]));
}

/** Every number `check` reports for a target equals the harness's (same model file, same documents). */
function expectSameAsCheck(forecasts: Forecast[], harness: Record<string, number | null>, stdout: string, metricOf: Map<string, string>) {
  for (const f of forecasts) {
    const m = metricOf.get(f.target)!;
    const filters = Object.keys(harness).filter((k) => k.startsWith(`${m},`));
    expect(filters.length, `${m} in the harness results`).toBeGreaterThan(0);
    for (const key of filters) {
      const at = (suffix: string) => harness[key.replace(`${m},`, `${m}${suffix},`)];
      if (f.predicted === null) {
        expect(at('')).toBeNull();
        continue;
      }
      expect(at('')).toBeCloseTo(f.predicted, 6);
      for (const iv of f.intervals) {
        const tag = String(Math.round(iv.level * 100));
        expect(at(`_lo${tag}`)).toBeCloseTo(iv.lower, 6);
        expect(at(`_hi${tag}`)).toBeCloseTo(iv.upper, 6);
      }
      expect(at('_vouched')).toBe(f.concerns.length ? 0 : 1);
      expect(at('_missing')).toBe(f.missingInstances);
    }
    if (f.predicted !== null) {
      const printed = tableValues(stdout, m);
      expect(printed.length).toBeGreaterThan(0);
      for (const v of printed) expect(Math.abs(v - f.predicted)).toBeLessThanOrEqual(5.1e-5);
    }
  }
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

    // The population, shards and fit of docs/workflow.md, so the docs test and this one share
    // each harness job (test/helpers/harness-cache.mjs): one real run per job per test run.
    const scores = [[0.22, 0.31], [0.35, 0.28], [0.41, 0.44], [0.18, 0.12]];
    const refs = [1, 2, 3, 4].map((i) => `  - {name: ref-${i}, model: dummy, model_args: pretrained=ref-${i}, extra_args: [--seed, "${i}"], scores: {swe-bench: ${scores[i - 1]![0]}, gaia: ${scores[i - 1]![1]}}}`);
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
    const lmEvalBin = sharedHarnessBin(dir);
    const env = { ...harnessEnv, PATH: `${lmEvalBin}:${venvBin}:${process.env.PATH}` };
    const run = spawnSync('bash', ['-c', `seq 0 ${jobs.length - 1} | xargs -P 2 -I{} bash plans/run.sh {}`], { cwd: dir, env, encoding: 'utf8', timeout: 1_800_000 });
    expect(run.status, run.stderr.slice(-3000)).toBe(0);

    process.chdir(dir);
    let stored;
    try {
      stored = await cli('ingest', 'runs', '--targets', 'plans/targets.csv', '--mapping', 'plans/model-names.csv', '--out', 'store', '--json', '--quiet');
    } finally {
      process.chdir(cwd);
    }
    ok(stored, 'ingest');
    const full = countDocs(at('suite'));
    expect(stored.json.data.shape).toEqual([4, full]); // every document of every shard, once per model
    expect(stored.json.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);

    ok(await cli('fit', '--store', at('store'), '--suite', at('suite'), '--budget', '12', '--bootstrap', '50', '--out', at('fit'), '--quiet'), 'fit');
    const model = JSON.parse(readFileSync(at('fit', 'model.json'), 'utf8'));
    const proxyDocs = countDocs(at('fit', 'proxy-suite'));
    expect(proxyDocs).toBe(model.proxy.length);
    expect(proxyDocs).toBeLessThan(full);

    const ckpt = spawnSync(path.join(lmEvalBin, 'lm_eval'), ['--model', 'dummy', '--model_args', 'pretrained=step-500', '--include_path', at('fit', 'proxy-suite'), '--tasks', 'team_suite', '--log_samples', '--output_path', at('runs-ckpt'), '--seed', '9'], { cwd: dir, env, encoding: 'utf8', timeout: 600_000 });
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

    // `lm_eval --tasks <proxy suite>` alone answers the question: its table shows check's numbers.
    const suiteModel = JSON.parse(readFileSync(at('fit', 'proxy-suite', 'pace_model.json'), 'utf8'));
    const metricOf = new Map<string, string>(suiteModel.targets.map((t: { target: string; metric: string }) => [t.target, t.metric]));
    const forecasts = check.json.data.targets as Forecast[];
    expect(forecasts.every((f) => f.predicted !== null)).toBe(true);
    // A checkpoint unlike every training model: a copied training prediction would not match.
    const pool = model.targets[0].trainingModels.map((r: { score: number }) => r.score);
    expect(pool.some((s: number) => Math.abs(s - forecasts[0]!.predicted!) < 1e-9)).toBe(false);
    expectSameAsCheck(forecasts, harnessPredictions(at('runs-ckpt'), 'team_suite'), ckpt.stdout, metricOf);
    // One reporting task and the group carry the prediction: each metric on the task's row and on
    // the group's (which lm-eval prints in both of its tables), and no warning about the group's
    // pace_* metrics missing in the other tasks.
    const paceRows = ckpt.stdout.split('\n').map((l) => l.split('|').map((c) => c.trim())).filter((c) => c.length > 7 && c[5]!.startsWith('pace_'));
    expect(paceRows).toHaveLength(3 * metricOf.size * PACE_METRIC_FIELDS.length);
    expect(ckpt.stderr).not.toMatch(/metric 'pace_/);

    // One proxy document left out of the run (--samples): both place the checkpoint from the rest.
    const byTask = new Map<string, number>();
    for (const p of model.proxy as Array<{ task: string }>) byTask.set(p.task, (byTask.get(p.task) ?? 0) + 1);
    const [bigTask, count] = [...byTask].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
    expect(count).toBeGreaterThan(1);
    const keep = Array.from({ length: count - 1 }, (_, i) => i + 1);
    const partial = spawnSync(path.join(venvBin, 'lm_eval'), ['--model', 'dummy', '--model_args', 'pretrained=step-600', '--include_path', at('fit', 'proxy-suite'), '--tasks', 'team_suite', '--samples', JSON.stringify({ [bigTask]: keep }), '--log_samples', '--output_path', at('runs-partial'), '--seed', '11'], { cwd: dir, env, encoding: 'utf8', timeout: 600_000 });
    expect(partial.status, partial.stderr.slice(-3000)).toBe(0);
    const checkPartial = await cli('check', '--model-file', at('fit', 'model.json'), '--model', 'step-600', '--logs', at('runs-partial'), '--out', at('report-partial'), '--allow-unproven', '--max-missing', '1', '--json', '--quiet');
    expect([0, 1]).toContain(checkPartial.code);
    const partialForecasts = checkPartial.json.data.targets as Forecast[];
    expect(partialForecasts.some((f) => f.missingInstances === 1)).toBe(true);
    expectSameAsCheck(partialForecasts, harnessPredictions(at('runs-partial'), 'team_suite'), partial.stdout, metricOf);

    // The cost of a checkpoint: the proxy documents against the whole suite.
    const cost = { documents: proxyDocs / full, promptChars: promptChars(at('fit', 'proxy-suite')) / promptChars(at('suite')) };
    writeFileSync(path.join(dir, 'cost.json'), JSON.stringify(cost));
    console.log(`proxy-only run: ${proxyDocs}/${full} documents (${(100 * cost.documents).toFixed(1)}%), ${(100 * cost.promptChars).toFixed(1)}% of prompt characters`);
  }, 1_800_000);
});
