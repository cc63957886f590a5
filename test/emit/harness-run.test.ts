import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { lmEval, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { DIST_DIR, DIST_SUITE, expectedContext, jsonlRows, readRun, run, runHarnessTests, sha256Hex, type HarnessRun } from './support.js';

/**
 * The committed suite run by the real harness (dummy model, offline) from a working
 * directory outside the repository, with a relative --include_path: data paths must
 * resolve against the YAML, not the cwd.
 */
describe.skipIf(!runHarnessTests)('lm_eval runs dist-tasks', () => {
  const manifest = JSON.parse(readFileSync(path.join(DIST_DIR, 'aptpace-manifest.json'), 'utf8'));
  const tasks: string[] = manifest.tasks;
  let harness: HarnessRun;
  let stderr = '';

  beforeAll(async () => {
    const cwd = tempDir('aptpace-lmeval-cwd-');
    const includePath = path.relative(cwd, path.join(repoRoot, 'dist-tasks'));
    const r = await run(
      lmEval,
      ['--model', 'dummy', '--model_args', 'pretrained=aptpace-dummy', '--include_path', includePath, '--tasks', DIST_SUITE, '--log_samples', '--output_path', 'out', '--seed', '0'],
      { cwd },
    );
    stderr = r.stderr;
    if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-4000)}`);
    harness = readRun(path.join(cwd, 'out', 'aptpace-dummy'));
  }, 180_000);

  it('ran every document of every task, once per filter', () => {
    expect([...harness.samples.keys()].sort()).toEqual([...tasks].sort());
    for (const task of tasks) {
      const rows = jsonlRows(path.join(DIST_DIR, 'data', `${task}.test.jsonl`));
      expect(harness.results['n-samples'][task]).toEqual({ original: rows.length, effective: rows.length });
      const records = harness.samples.get(task)!;
      expect(records.map((r) => r.doc_id)).toEqual(rows.map((_, i) => i));
      expect(new Set(records.map((r) => r.filter)).size).toBe(1);
    }
    expect(stderr).not.toMatch(/overrides existing task/);
    // No warnings of our making: the custom loader's per-task `--metadata` notice is dropped for our tasks.
    expect(stderr).not.toMatch(/Custom kwargs can be passed to `--metadata`/);
    // Nor group-aggregation warnings: every task reports the one metric each group averages.
    expect(stderr).not.toMatch(/Group '[^']*': (metric|no values)/);
  });

  it('logs our documents and prompts unchanged: doc_hash and prompt_hash match the JSONL', () => {
    for (const task of tasks) {
      const rows = jsonlRows(path.join(DIST_DIR, 'data', `${task}.test.jsonl`));
      const shots = harness.results['n-shot'][task];
      for (const record of harness.samples.get(task)!) {
        const row = rows[record.doc_id];
        expect(record.doc).toEqual(row);
        expect(record.doc_hash).toBe(sha256Hex(JSON.stringify(row, null, 2)));
        const context = expectedContext(DIST_DIR, task, row, shots);
        expect(record.arguments.gen_args_0.arg_0).toBe(context);
        expect(record.prompt_hash).toBe(sha256Hex(context));
      }
    }
  });

  it('asks one continuation per choice for multiple choice, and generates with our stop sequences', () => {
    const mc = harness.samples.get('aptpace_swe_plan_mcq')!;
    const rows = jsonlRows(path.join(DIST_DIR, 'data', 'aptpace_swe_plan_mcq.test.jsonl'));
    for (const record of mc) {
      const choices = rows[record.doc_id].choices as string[];
      expect(Object.values(record.arguments).map((a: any) => a.arg_1)).toEqual(choices);
      expect(record.target).toBe(String(rows[record.doc_id].gold));
      expect(record.metrics).toEqual(['acc']);
    }
    const gen = harness.samples.get('aptpace_swe_next_action')!;
    for (const record of gen) {
      expect(record.arguments.gen_args_0.arg_1.until).toEqual(['\n', '```']);
      expect(record.filter).toBe('none');
      expect(record.filtered_resps).toEqual(['lol']);
      expect(record.exact_match).toBe(0);
      expect(record.acc).toBe(0);
    }
    for (const record of harness.samples.get('aptpace_dr_answer')!) {
      expect(record.metrics.sort()).toEqual(['acc', 'exact_match', 'rouge1', 'rouge2', 'rougeL']);
      expect(record.rouge1).toBe(0);
    }
  });

  it('reports every task metric under one filter name, and one headline score per group', () => {
    const group = harness.results.groups[DIST_SUITE];
    expect(Object.keys(group).filter((k) => k.includes(',')).sort()).toEqual(['acc,none', 'acc_stderr,none']);
    for (const t of tasks) expect(typeof harness.results.results[t]['acc,none'], t).toBe('number');
    for (const key of ['exact_match,none', 'rouge1,none', 'rouge2,none', 'rougeL,none']) expect(typeof harness.results.results.aptpace_dr_answer[key], key).toBe('number');
    // The macro average: each task counts once, whatever its document count.
    const acc = (t: string) => harness.results.results[t]['acc,none'] as number;
    const swe = ['aptpace_swe_plan_mcq', 'aptpace_env_setup_plan_mcq', 'aptpace_swe_next_action'];
    const mean = (ts: string[]) => ts.reduce((a, t) => a + acc(t), 0) / ts.length;
    expect(group['acc,none']).toBeCloseTo(mean(tasks), 12);
    expect(harness.results.groups[`${DIST_SUITE}_swe`]['acc,none']).toBeCloseTo(mean(swe), 12);
    expect(harness.results.group_subtasks[DIST_SUITE].sort()).toEqual([`${DIST_SUITE}_dr`, `${DIST_SUITE}_swe`]);
    expect([...harness.results.group_subtasks[`${DIST_SUITE}_swe`], ...harness.results.group_subtasks[`${DIST_SUITE}_dr`]].sort()).toEqual([...tasks].sort());
    expect(harness.results.results.aptpace_swe_next_action['exact_match,none']).toBe(0);
    for (const t of tasks) expect(harness.results.versions[t]).toBe('1.0');
    expect(harness.results['n-shot'].aptpace_swe_plan_mcq).toBe(3);
    expect(harness.results['n-shot'].aptpace_dr_answer).toBe(0);
  });
});
