import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { python, venvBin } from '../helpers/env.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { DIST_DIR, DIST_SUITE, FIXTURE_QUESTIONS, copyTree, jsonlRows, readRun, run, runHarnessTests, type HarnessRun } from './support.js';

/**
 * `aptpace emit --harness` into a fresh copy of the installed harness package, then the
 * printed command (model swapped for the dummy) run against that copy, without --include_path.
 */
describe.skipIf(!runHarnessTests)('install into a harness checkout and run from there', () => {
  let checkout: string;
  let printed: string;
  let harness: HarnessRun;

  beforeAll(async () => {
    const located = await run(python, ['-c', 'import lm_eval, os; print(os.path.dirname(lm_eval.__file__))']);
    if (located.code !== 0) throw new Error(located.stderr);
    checkout = path.join(tempDir('aptpace-checkout-'), 'lm-evaluation-harness');
    copyTree(located.stdout.trim(), path.join(checkout, 'lm_eval'));

    const emitted = await cli('--json', 'emit', FIXTURE_QUESTIONS, '--fewshot-split', '--suite', DIST_SUITE, '--harness', checkout);
    if (emitted.code !== 0) throw new Error(emitted.stderr);
    printed = emitted.json.data.lmEvalCommand;

    const cwd = tempDir('aptpace-checkout-cwd-');
    const command = printed.replace('--model hf --model_args "pretrained=$MODEL"', '--model dummy --model_args pretrained=aptpace-dummy');
    const r = await run('sh', ['-c', command], { cwd, env: { PYTHONPATH: checkout, PATH: `${venvBin}:${process.env.PATH}` } });
    if (r.code !== 0) throw new Error(`${command}\nexited ${r.code}:\n${r.stderr.slice(-4000)}`);
    harness = readRun(path.join(cwd, 'runs', DIST_SUITE, 'aptpace-dummy'));
  }, 240_000);

  it('installs the same suite dist-tasks holds, under lm_eval/tasks/<suite>', () => {
    const installed = path.join(checkout, 'lm_eval', 'tasks', DIST_SUITE);
    expect(readdirSync(installed).sort()).toEqual(readdirSync(DIST_DIR).sort());
    for (const f of ['_aptpace_fixtures.yaml', 'utils.py', 'data/aptpace_swe_plan_mcq.test.jsonl']) {
      expect(readFileSync(path.join(installed, f), 'utf8')).toBe(readFileSync(path.join(DIST_DIR, f), 'utf8'));
    }
    expect(existsSync(path.join(checkout, 'lm_eval', 'tasks', 'arc', 'arc_easy.yaml'))).toBe(true);
  });

  it('prints a command without --include_path that runs every document of the suite', () => {
    expect(printed).toBe(`HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 lm_eval --model hf --model_args "pretrained=$MODEL" --tasks ${DIST_SUITE} --log_samples --output_path runs/${DIST_SUITE}`);
    const manifest = JSON.parse(readFileSync(path.join(DIST_DIR, 'aptpace-manifest.json'), 'utf8'));
    for (const task of manifest.tasks as string[]) {
      const rows = jsonlRows(path.join(DIST_DIR, 'data', `${task}.test.jsonl`));
      expect(harness.samples.get(task)!.map((r) => r.doc.id)).toEqual(rows.map((r) => r.id));
      // The task came from the copy, not from the venv's own package.
      expect(harness.results.configs[task].metadata.config_source).toContain(path.join(checkout, 'lm_eval', 'tasks', DIST_SUITE));
    }
    expect(typeof harness.results.groups[DIST_SUITE]['acc,none']).toBe('number');
  });
});
