import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { inject } from 'vitest';
import { lmEval, repoRoot } from './env.js';
import { shellQuote } from '../../generator/core/workflow/run-plan-scripts.js';

/**
 * A folder holding `lm_eval`: the real harness behind test/helpers/harness-cache.mjs, which
 * runs each distinct job once per test run and writes the recorded output back for the same job
 * in another test (the docs' workflow blocks and test/e2e/workflow.test.ts). Put it first on
 * PATH, or call `<bin>/lm_eval`, where a test runs a job another test also runs; each call
 * still leaves what the real lm_eval leaves (exit code, stdout, stderr, the output folder).
 * Only for jobs whose --output_path no other job writes into at the same time.
 */
export function sharedHarnessBin(parent: string): string {
  const bin = path.join(parent, 'shared-harness-bin');
  mkdirSync(bin, { recursive: true });
  const cache = inject('harnessCache');
  const shim = path.join(repoRoot, 'test', 'helpers', 'harness-cache.mjs');
  const env = [`APTPACE_HARNESS_REAL=${shellQuote(lmEval)}`, ...(cache && existsSync(cache) ? [`APTPACE_HARNESS_CACHE=${shellQuote(cache)}`] : [])];
  writeFileSync(path.join(bin, 'lm_eval'), `#!/bin/sh\nexport ${env.join(' ')}\nexec ${shellQuote(process.execPath)} ${shellQuote(shim)} "$@"\n`);
  chmodSync(path.join(bin, 'lm_eval'), 0o755);
  return bin;
}
