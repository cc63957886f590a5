import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { harnessEnv, hasLmEval, hasSharedData, inCi, python, repoRoot, shared, venvBin } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { run } from '../emit/support.js';

/**
 * The verdict loop with models that answer, in the real harness. A reference population of
 * ladder models (test/models/ladder_model.py: each answers a document correctly with probability
 * σ(ability − difficulty)) carries an agentic truth that is a known non-linear function of the
 * same latent ability. It runs through plan → run.sh → ingest → fit --suite; then a checkpoint
 * ladder (one seed, so a higher rung answers a superset of a lower rung's documents), an oracle
 * and an anti-oracle run the proxy-only suite and `check` judges each against a threshold.
 */
const runnable = (hasLmEval && hasSharedData) || inCi;
const LADDER = path.join(repoRoot, 'test', 'models', 'ladder_model.py');
const TARGET = 'agentic';
const THRESHOLD = 0.4;

/** The agentic truth of a model with latent ability a: steeper than the suite's own curve. */
const truthOf = (a: number) => 1 / (1 + Math.exp(-1.6 * (a - 0.6)));

const REFERENCES = Array.from({ length: 14 }, (_, i) => ({ name: `ref-${String(i + 1).padStart(2, '0')}`, ability: -1 + (3 * i) / 13 }));
const RUNGS = [
  { name: 'anti', args: 'mode=anti', ability: -Infinity },
  ...[-4, -2.5, -1.5, -0.5, 0.25, 1, 1.75].map((a) => ({ name: `step-${a}`, args: `ability=${a},seed=ckpt-series`, ability: a })),
  { name: 'oracle', args: 'mode=oracle', ability: Infinity },
];

/**
 * A second series of checkpoints with other item draws: the verdicts must not hinge on which
 * proxy items a checkpoint happened to get right (the range guard's noise margin, range-noise.ts).
 */
const OTHER_SERIES = [-2.5, -1.5, 1, 1.75].map((a) => ({ name: `other-${a}`, args: `ability=${a},seed=ckpt-other`, ability: a }));

type Forecast = { target: string; predicted: number | null; intervals: Array<{ level: number; lower: number; upper: number }>; concerns: string[] };
type Checked = { name: string; ability: number; code: number; status: string; predicted: number | null; interval: [number, number] | null; interval80: [number, number] | null; concerns: string[] };

describe.skipIf(!runnable)('a checkpoint ladder through the real harness: plan → run.sh → ingest → fit → proxy suite → check', () => {
  const dir = tempDir('aptpace-ladder-');
  const at = (...p: string[]) => path.join(dir, ...p);
  const env = { ...harnessEnv, PATH: `${at('bin')}:${venvBin}:${process.env.PATH}` };
  let ingest: any;
  const checked: Checked[] = [];
  const otherSeries: Checked[] = [];
  let poolCopies: number[] = [];
  let model: any;
  const seeds: Array<Record<string, string>> = [];
  const table: string[] = [];

  beforeAll(async () => {
    const ok = (r: { code: number; stderr: string }, what: string) => expect(r.code, `${what}\n${r.stderr.slice(-3000)}`).toBe(0);
    // `lm_eval` on PATH is the real harness with the ladder models registered (as a team's wrapper would be).
    mkdirSync(at('bin'), { recursive: true });
    writeFileSync(at('bin', 'lm_eval'), `#!/bin/sh\nexec "${python}" "${LADDER}" "$@"\n`);
    chmodSync(at('bin', 'lm_eval'), 0o755);

    ok(await cli('build', shared('trajectories', 'deep-research', 'aptbench_summ_ans_en.head120.jsonl'), '--kinds', 'dr_plan_mcq,dr_answer_tc', '--seed', '0', '--out', at('questions.jsonl'), '--quiet', '--no-audit'), 'build');
    ok(await cli('emit', at('questions.jsonl'), '--suite', 'ladder_suite', '--out', at('suite'), '--quiet'), 'emit');
    const refs = REFERENCES.map((r) => `  - {name: ${r.name}, model: aptpace-ladder, model_args: "pretrained=${r.name},ability=${r.ability.toFixed(4)},seed=${r.name}", scores: {${TARGET}: ${truthOf(r.ability).toFixed(6)}}}`);
    writeFileSync(at('reference.yaml'), `format: aptpace-reference/1\nsuite: {path: suite}\nreferences:\n${refs.join('\n')}\n`);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      ok(await cli('plan', '--reference', 'reference.yaml', '--models', 'references', '--out', 'plans', '--quiet'), 'plan');
    } finally {
      process.chdir(cwd);
    }
    const jobs = readFileSync(at('plans', 'jobs.tsv'), 'utf8').trim().split('\n').slice(1);
    expect(jobs).toHaveLength(REFERENCES.length);
    const planRun = spawnSync('bash', ['-c', `seq 0 ${jobs.length - 1} | xargs -P 2 -I{} bash plans/run.sh {}`], { cwd: dir, env, encoding: 'utf8', timeout: 1_800_000 });
    expect(planRun.status, planRun.stderr.slice(-3000)).toBe(0);
    process.chdir(dir);
    try {
      ingest = await cli('ingest', 'runs', '--targets', 'plans/targets.csv', '--out', 'store', '--json', '--quiet');
    } finally {
      process.chdir(cwd);
    }
    ok(ingest, 'ingest');
    ok(await cli('fit', '--store', at('store'), '--suite', at('suite'), '--target', TARGET, '--budget', '40', '--bootstrap', '20', '--out', at('fit'), '--quiet'), 'fit');
    model = JSON.parse(readFileSync(at('fit', 'model.json'), 'utf8'));

    // The pool's own rows, predicted as if each were a new checkpoint (a copy of a pool model).
    poolCopies = [];
    for (const r of REFERENCES) {
      const c = await cli('check', '--model-file', at('fit', 'model.json'), '--model', r.name, '--store', at('store'), '--allow-unproven', '--out', at('reports-pool', r.name), '--json', '--quiet');
      poolCopies.push(c.json.data.targets[0].predicted);
    }

    const runs = [...RUNGS, ...OTHER_SERIES].map((rung) => ({ rung, out: at('runs-ckpt', rung.name) }));
    // Two proxy-only runs at a time, through the same `lm_eval` a team's CI step calls.
    const queue = [...runs];
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const { rung, out } = job;
        const r = await run(at('bin', 'lm_eval'), ['--model', 'aptpace-ladder', '--model_args', `pretrained=${rung.name},${rung.args}`, '--include_path', at('fit', 'proxy-suite'), '--tasks', 'ladder_suite', '--log_samples', '--output_path', out], { cwd: dir, env });
        if (r.code !== 0) throw new Error(`lm_eval ${rung.name} exited ${r.code}:\n${r.stderr.slice(-3000)}`);
      }
    };
    await Promise.all([worker(), worker()]);
    for (const { rung, out } of runs) {
      const c = await cli('check', '--model-file', at('fit', 'model.json'), '--model', rung.name, '--logs', out, '--min-score', `${TARGET}=${THRESHOLD}`, '--out', at('reports', rung.name), '--json', '--quiet');
      const t = c.json.data.targets[0] as Forecast & { status: string; interval: [number, number] | null };
      expect(t, `${rung.name}: ${c.stderr.slice(-500)}`).toBeDefined();
      const i80 = t.intervals.find((iv) => iv.level === 0.8);
      (RUNGS.includes(rung) ? checked : otherSeries).push({ name: rung.name, ability: rung.ability, code: c.code, status: t.status, predicted: t.predicted, interval: t.interval, interval80: i80 ? [i80.lower, i80.upper] : null, concerns: t.concerns });
    }
    // The same verdicts under five fit seeds: a pool-model copy, the lowest rung and the anti-oracle.
    for (const seed of ['1', '2', '3', '4', '5']) {
      ok(await cli('fit', '--store', at('store'), '--target', TARGET, '--budget', '40', '--bootstrap', '20', '--seed', seed, '--out', at(`fit-seed-${seed}`), '--quiet'), `fit --seed ${seed}`);
      const row: Record<string, string> = {};
      for (const [name, source] of [
        [REFERENCES[7]!.name, ['--store', at('store')]],
        ['step--4', ['--logs', at('runs-ckpt', 'step--4')]],
        ['anti', ['--logs', at('runs-ckpt', 'anti')]],
      ] as const) {
        const c = await cli('check', '--model-file', at(`fit-seed-${seed}`, 'model.json'), '--model', name, ...source, '--min-score', `${TARGET}=${THRESHOLD}`, '--out', at('reports-seed', seed, name), '--json', '--quiet');
        const t = c.json.data.targets[0];
        row[name] = t.status;
        const i80 = t.intervals.find((iv: { level: number }) => iv.level === 0.8);
        table.push(`| ${name} | ${seed} | ${t.predicted?.toFixed(3)} | [${i80?.lower.toFixed(3)}, ${i80?.upper.toFixed(3)}] | ${t.status}${t.concerns.length ? ` (${t.concerns.join(', ')})` : ''} |`);
      }
      seeds.push(row);
    }
    writeFileSync(at('ladder.json'), JSON.stringify({ checked, otherSeries, poolCopies, seeds }, null, 1));
    for (const c of [...checked, ...otherSeries]) table.push(`| ${c.name} (truth ${Number.isFinite(c.ability) ? truthOf(c.ability).toFixed(3) : '–'}) | 0 | ${c.predicted?.toFixed(3)} | [${c.interval80?.map((x) => x.toFixed(3)).join(', ')}] | ${c.status}${c.concerns.length ? ` (${c.concerns.join(', ')})` : ''} |`);
    console.log(`checkpoint × seed (threshold ${TARGET} ≥ ${THRESHOLD}; truth = σ(1.6(a − 0.6))):\n| checkpoint | seed | predicted | 80% interval | verdict |\n|---|---|---|---|---|\n${table.join('\n')}`);
  }, 3_600_000);

  it('the verdicts do not hinge on the fit seed (5 seeds)', () => {
    expect(seeds).toHaveLength(5);
    for (const row of seeds) expect(row).toEqual(seeds[0]);
    expect(seeds[0]!['step--4']).not.toBe('pass');
    expect(seeds[0]!.anti).not.toBe('pass');
  });

  it('ingests every reference run with no answer rejected', () => {
    expect(ingest.json.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([]);
    expect(ingest.json.findings.map((f: { code: string }) => f.code)).not.toContain('samples-metric-mismatch');
    expect(ingest.json.data.shape[0]).toBe(REFERENCES.length);
  });

  it('the fit shows skill on the population (seed-free sign-flip test over 14 models)', () => {
    expect(model.targets[0].cv.models).toBe(REFERENCES.length);
    expect(model.targets[0].cv.verdict).toBe('better');
  });

  it('predictions never decrease up the ladder, from the anti-oracle to the oracle', () => {
    const predicted = checked.map((c) => c.predicted);
    expect(predicted.every((p) => p !== null && Number.isFinite(p))).toBe(true);
    for (let i = 1; i < predicted.length; i++) expect(predicted[i]!, `${checked[i - 1]!.name} → ${checked[i]!.name}`).toBeGreaterThanOrEqual(predicted[i - 1]! - 1e-12);
  });

  it('the oracle is predicted at least as high as a copy of any pool model, the anti-oracle no higher than any', () => {
    const oracle = checked.find((c) => c.name === 'oracle')!.predicted!;
    const anti = checked.find((c) => c.name === 'anti')!.predicted!;
    expect(oracle).toBeGreaterThanOrEqual(Math.max(...poolCopies) - 1e-12);
    expect(anti).toBeLessThanOrEqual(Math.min(...poolCopies) + 1e-12);
  });

  it('a rung below the reference population never passes: cannot-judge or fail', () => {
    const lowest = Math.min(...REFERENCES.map((r) => r.ability));
    const below = checked.filter((c) => c.ability < lowest - 0.25);
    expect(below.map((c) => c.name)).toEqual(['anti', 'step--4', 'step--2.5', 'step--1.5']);
    for (const c of below) {
      expect(c.status, c.name).not.toBe('pass');
      expect(c.code, c.name).not.toBe(0);
    }
    // No proxy item right: the gate says it cannot vouch, and why, whatever the threshold.
    expect(checked.find((c) => c.name === 'anti')!.concerns).toContain('below-training-range');
  });

  it('rungs inside the population land within their 80% intervals at the stated rate, and those clearly above the threshold pass', () => {
    const lowest = Math.min(...REFERENCES.map((r) => r.ability));
    const highest = Math.max(...REFERENCES.map((r) => r.ability));
    const inside = checked.filter((c) => c.ability > lowest + 0.25 && c.ability < highest - 0.25);
    expect(inside.length).toBeGreaterThanOrEqual(3);
    // 14 references bound an 80% interval (4 residuals needed) but not a 95% one (19 needed).
    const covered = inside.filter((c) => c.interval80 && truthOf(c.ability) >= c.interval80[0] && truthOf(c.ability) <= c.interval80[1]);
    expect(inside.every((c) => c.interval80 && c.interval80[1] - c.interval80[0] < 1)).toBe(true);
    // 80% nominal over a handful of rungs: at most one miss.
    expect(covered.length, JSON.stringify(inside)).toBeGreaterThanOrEqual(inside.length - 1);
    for (const c of inside.filter((x) => truthOf(x.ability) > THRESHOLD + 0.25)) expect(c.status, c.name).toBe('pass');
    // A rung far below the threshold (truth under half of it) never passes inside the population.
    for (const c of inside.filter((x) => truthOf(x.ability) < THRESHOLD / 2)) expect(c.status, c.name).not.toBe('pass');
    // A pass whose truth is below the threshold is never a confident one: its 80% interval reaches
    // below the threshold, and the report's "What next" says the pass is not certain.
    for (const c of inside.filter((x) => x.status === 'pass' && truthOf(x.ability) < THRESHOLD)) {
      expect(c.interval80![0], c.name).toBeLessThan(THRESHOLD);
      expect(readFileSync(at('reports', c.name, 'summary.md'), 'utf8'), c.name).toContain('the pass is not certain');
    }
  });

  it('a second series with other item draws gets the same verdicts: below the population never passes, clearly above the threshold passes', () => {
    const lowest = Math.min(...REFERENCES.map((r) => r.ability));
    expect(otherSeries.map((c) => c.name)).toEqual(OTHER_SERIES.map((r) => r.name));
    for (const c of otherSeries.filter((x) => x.ability < lowest - 0.25)) {
      expect(c.status, c.name).not.toBe('pass');
      expect(c.code, c.name).not.toBe(0);
    }
    for (const c of otherSeries.filter((x) => x.ability > lowest + 0.25 && truthOf(x.ability) > THRESHOLD + 0.25)) expect(c.status, `${c.name}: ${c.concerns.join(', ')}`).toBe('pass');
    const predicted = otherSeries.map((c) => c.predicted!);
    for (let i = 1; i < predicted.length; i++) expect(predicted[i]!).toBeGreaterThanOrEqual(predicted[i - 1]! - 1e-12);
  });
});
