import { describe, expect, it } from 'vitest';
import * as path from 'node:path';
import { cli } from '../helpers/cli.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { jsonlRows, probe, runHarnessTests } from './support.js';

/**
 * The real pipeline, trajectories → `aptpace build` → `aptpace emit`, loaded by the harness's
 * TaskManager. Not committed like dist-tasks: the builder's output is its own domain and
 * may change; what must hold is that whatever it builds compiles into tasks the harness loads.
 */
async function buildEmitLoad(inputs: string[], suite: string, extra: string[] = []) {
  const dir = tempDir('aptpace-pipeline-');
  const questions = path.join(dir, 'questions.jsonl');
  // The audit's verdict is not this test's subject (test/audit/build-gate.test.ts is).
  const built = await cli('build', ...inputs, '--out', questions, '--quiet', '--no-audit', ...extra);
  expect(built.code, built.stderr.slice(-2000)).toBe(0);
  const out = path.join(dir, suite);
  const emitted = await cli('--json', 'emit', questions, '--suite', suite, '--out', out);
  expect(emitted.code, emitted.stderr.slice(-2000)).toBe(0);
  const loaded = await probe(['load', out, suite]);
  return { out, emitted: emitted.json.data, loaded };
}

function expectLoadedAsEmitted(out: string, emitted: any, loaded: any) {
  const tasks = emitted.tasks.map((t: { task: string }) => t.task);
  expect(Object.keys(loaded.tasks)).toEqual(tasks);
  for (const t of emitted.tasks as Array<{ task: string; docs: number }>) {
    const rows = jsonlRows(path.join(out, 'data', `${t.task}.test.jsonl`));
    const task = loaded.tasks[t.task];
    expect(rows.length).toBe(t.docs);
    expect(task.docs).toEqual(rows);
    // Builder prompts carry their own worked examples; the harness adds none.
    expect(task.num_fewshot).toBe(0);
    expect(task.context0).toBe(rows[0].query);
  }
}

describe.skipIf(!runHarnessTests)('trajectories → build → emit → harness', () => {
  it('loads every task built from the project trajectory fixtures', async () => {
    const { out, emitted, loaded } = await buildEmitLoad([fixtures('canonical')], 'aptpace_pipeline');
    expect(emitted.tasks.length).toBeGreaterThan(3);
    expectLoadedAsEmitted(out, emitted, loaded);
  }, 180_000);

  it.skipIf(!hasSharedData)('loads every task built from the shared real trajectories', async () => {
    const { out, emitted, loaded } = await buildEmitLoad(
      [shared('trajectories', 'swe-agent'), shared('trajectories', 'deep-research')],
      'aptpace_shared_pipeline',
      ['--include-unproven'],
    );
    // The shared deep-research runs include Chinese ones, so the suite is multi-language and
    // every task name carries its language (emit/plan.ts).
    expect(emitted.tasks.map((t: { task: string }) => t.task)).toEqual(expect.arrayContaining(['aptpace_dr_answer_en', 'aptpace_dr_plan_mcq_en', 'aptpace_dr_plan_mcq_zh', 'aptpace_swe_plan_mcq_en']));
    expectLoadedAsEmitted(out, emitted, loaded);
  }, 180_000);
});
