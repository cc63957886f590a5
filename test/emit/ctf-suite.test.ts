import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readBackYaml } from '../../generator/core/emit/yaml-io.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { planSuite } from '../../generator/core/emit/plan.js';
import { builtinTaskNames } from '../../generator/core/emit/names.js';
import { loadSuiteTemplates } from '../../generator/core/emit/templates.js';
import type { Question } from '../../generator/core/questions/types.js';
import { cli } from '../helpers/cli.js';
import { fixtures, lmEval } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { mcq, readRun, run, runHarnessTests } from './support.js';

/**
 * A suite built from SWE and CTF runs together: CTF questions are their own tasks
 * (`aptpace_ctf_…`) under a `<suite>_ctf` subgroup of the macro average, beside `<suite>_swe`,
 * and the real harness runs them.
 */
const SUITE = 'aptpace_ctfmix';
const yaml = (file: string): any => readBackYaml(readFileSync(file, 'utf8')).value;

describe('a suite with CTF questions', () => {
  let dir: string;
  let manifest: { tasks: string[] };
  beforeAll(async () => {
    const root = tempDir('aptpace-ctf-suite-');
    const questions = path.join(root, 'q.jsonl');
    const b = await cli('build', fixtures('ctf'), fixtures('canonical', 'swe-basic.jsonl'), '--kinds', 'plan_mcq,next_action_tc,next_action_mcq', '--seed', '0', '--no-audit', '--out', questions);
    if (b.code !== 0) throw new Error(b.stderr);
    dir = path.join(root, SUITE);
    const e = await cli('emit', questions, '--suite', SUITE, '--out', dir);
    if (e.code !== 0) throw new Error(e.stderr);
    manifest = JSON.parse(readFileSync(path.join(dir, 'aptpace-manifest.json'), 'utf8'));
  }, 120_000);

  it('files the CTF tasks under a ctf subgroup of the macro average, the SWE tasks under swe', () => {
    const ctfTasks = ['aptpace_ctf_next_action', 'aptpace_ctf_next_action_mcq', 'aptpace_ctf_plan_mcq'];
    const sweTasks = ['aptpace_swe_next_action', 'aptpace_swe_next_action_mcq', 'aptpace_swe_plan_mcq'];
    expect([...manifest.tasks].sort()).toEqual([...ctfTasks, ...sweTasks]);
    expect(yaml(path.join(dir, `_${SUITE}.yaml`))).toMatchObject({ group: SUITE, task: [`${SUITE}_swe`, `${SUITE}_ctf`] });
    expect([...yaml(path.join(dir, `_${SUITE}_ctf.yaml`)).task].sort()).toEqual(ctfTasks);
    expect([...yaml(path.join(dir, `_${SUITE}_swe.yaml`)).task].sort()).toEqual(sweTasks);
  });

  it.skipIf(!runHarnessTests)('runs in the real harness (dummy model): every CTF document scored, the ctf group aggregated', async () => {
    const cwd = tempDir('aptpace-ctf-lmeval-');
    const r = await run(lmEval, ['--model', 'dummy', '--model_args', 'pretrained=aptpace-dummy', '--include_path', path.dirname(dir), '--tasks', SUITE, '--log_samples', '--output_path', 'out', '--seed', '0'], { cwd });
    if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-4000)}`);
    const harness = readRun(path.join(cwd, 'out', 'aptpace-dummy'));
    for (const task of manifest.tasks.filter((t) => t.startsWith('aptpace_ctf_'))) {
      const rows = readFileSync(path.join(dir, 'data', `${task}.test.jsonl`), 'utf8').trimEnd().split('\n');
      expect(harness.results['n-samples'][task], task).toEqual({ original: rows.length, effective: rows.length });
      expect(harness.samples.get(task)!.length, task).toBe(rows.length);
    }
    expect(Object.keys(harness.results.groups ?? harness.results.results)).toContain(`${SUITE}_ctf`);
  }, 300_000);
});

describe('CTF tasks in a two-language suite', () => {
  it('get `_en`/`_zh` names and a ctf subgroup per language', async () => {
    const q = (id: string, language: 'en' | 'zh', kind: string, task: string): Question => mcq({ id, language, prompt: `Request: ${id}\n`, kind, task } as any);
    const p = planSuite(
      [q('a', 'en', 'plan_mcq', 'aptpace_ctf_plan_mcq'), q('b', 'zh', 'plan_mcq', 'aptpace_ctf_plan_mcq'), q('c', 'en', 'plan_mcq', 'aptpace_swe_plan_mcq')],
      { suite: 'suite', scoring: 'letter', numFewshot: 0, harnessVersion: '0.4.13' },
      await builtinTaskNames(),
      await loadSuiteTemplates(nodeVfs),
    );
    expect(p.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(p.tasks.map((t) => [t.task, t.area])).toEqual([
      ['aptpace_ctf_plan_mcq_en', 'ctf'],
      ['aptpace_ctf_plan_mcq_zh', 'ctf'],
      ['aptpace_swe_plan_mcq_en', 'swe'],
    ]);
    const group = (name: string) => readBackYaml(p.files.get(`_${name}.yaml`)!).value as any;
    expect(group('suite_en').task).toEqual(['suite_en_swe', 'suite_en_ctf']);
    expect(group('suite_en_ctf').task).toEqual(['aptpace_ctf_plan_mcq_en']);
    expect(group('suite_zh').task).toEqual(['suite_zh_ctf']);
    expect(group('suite_zh_ctf').task).toEqual(['aptpace_ctf_plan_mcq_zh']);
  });
});
