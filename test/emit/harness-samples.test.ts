import { beforeAll, describe, expect, it } from 'vitest';
import * as path from 'node:path';
import { lmEval, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { DIST_DIR, DIST_SUITE, jsonlRows, readRun, run, runHarnessTests, sha256Hex, type HarnessRun } from './support.js';

/** `--samples` with sorted indices: doc_id is then the true row index (unsorted lists are mislabelled). */
describe.skipIf(!runHarnessTests)('lm_eval --samples on dist-tasks', () => {
  const selection: Record<string, number[]> = {
    aptpace_dr_answer: [0, 3],
    aptpace_dr_answer_rouge: [1],
    aptpace_env_setup_plan_mcq: [2],
    aptpace_swe_next_action: [1, 2, 4],
    aptpace_swe_plan_mcq: [0, 5],
  };
  let harness: HarnessRun;

  beforeAll(async () => {
    const cwd = tempDir('aptpace-lmeval-samples-');
    const r = await run(
      lmEval,
      ['--model', 'dummy', '--model_args', 'pretrained=aptpace-dummy', '--include_path', path.join(repoRoot, 'dist-tasks'), '--tasks', DIST_SUITE,
        '--log_samples', '--output_path', 'out', '--samples', JSON.stringify(selection)],
      { cwd },
    );
    if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-4000)}`);
    harness = readRun(path.join(cwd, 'out', 'aptpace-dummy'));
  }, 180_000);

  it('evaluates exactly the selected rows, labelled with their own index', () => {
    for (const [task, indices] of Object.entries(selection)) {
      const rows = jsonlRows(path.join(DIST_DIR, 'data', `${task}.test.jsonl`));
      const records = harness.samples.get(task)!;
      expect(records.map((r) => r.doc_id)).toEqual(indices);
      for (const r of records) {
        expect(r.doc).toEqual(rows[r.doc_id]);
        expect(r.doc_hash).toBe(sha256Hex(JSON.stringify(rows[r.doc_id], null, 2)));
      }
      expect(harness.results['n-samples'][task]).toEqual({ original: rows.length, effective: indices.length });
    }
  });

  it('still aggregates the group over the selected documents', () => {
    const group = harness.results.groups[DIST_SUITE];
    // One headline over every selected document of every task (2 + 1 + 1 + 3 + 2).
    expect(group.sample_count).toEqual({ 'acc,none': 9 });
  });
});
