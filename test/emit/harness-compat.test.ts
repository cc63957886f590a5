import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { python, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { DIST_DIR, DIST_SUITE, jsonlRows, readRun, run, sha256Hex } from './support.js';

/**
 * Opt-in: dist-tasks run by another harness release. Point APTPACE_LM_EVAL_COMPAT at a folder
 * holding that release's `lm_eval` package, e.g. for 0.4.12:
 *   pip download --no-deps lm-eval==0.4.12 -d /tmp/w && python -m zipfile -e /tmp/w/lm_eval-0.4.12-*.whl /tmp/lm0412
 *   APTPACE_LM_EVAL_COMPAT=/tmp/lm0412 APTPACE_LM_EVAL_COMPAT_VERSION=0.4.12 npx vitest run test/emit/harness-compat.test.ts
 * The venv supplies the dependencies; the package on PYTHONPATH shadows the installed one.
 */
const compat = process.env.APTPACE_LM_EVAL_COMPAT;
describe.skipIf(!compat)('dist-tasks under another lm-eval release', () => {
  it('runs every document with matching hashes and the group aggregates', async () => {
    const cwd = tempDir('aptpace-compat-');
    const r = await run(
      python,
      ['-m', 'lm_eval', '--model', 'dummy', '--model_args', 'pretrained=aptpace-dummy', '--include_path', path.join(repoRoot, 'dist-tasks'), '--tasks', DIST_SUITE, '--log_samples', '--output_path', 'out'],
      { cwd, env: { PYTHONPATH: compat } },
    );
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const harness = readRun(path.join(cwd, 'out', 'aptpace-dummy'));
    if (process.env.APTPACE_LM_EVAL_COMPAT_VERSION) expect(harness.results.lm_eval_version).toBe(process.env.APTPACE_LM_EVAL_COMPAT_VERSION);
    const manifest = JSON.parse(readFileSync(path.join(DIST_DIR, 'aptpace-manifest.json'), 'utf8'));
    for (const task of manifest.tasks as string[]) {
      const rows = jsonlRows(path.join(DIST_DIR, 'data', `${task}.test.jsonl`));
      const records = harness.samples.get(task)!;
      expect(records.map((x) => x.doc_id)).toEqual(rows.map((_, i) => i));
      for (const x of records) expect(x.doc_hash).toBe(sha256Hex(JSON.stringify(rows[x.doc_id], null, 2)));
    }
    for (const key of ['acc,none', 'exact_match,first_line', 'rougeL,first_line']) expect(typeof harness.results.groups[DIST_SUITE][key]).toBe('number');
  }, 240_000);
});
