/**
 * Vitest global setup (vitest.config.ts): one fresh folder per test run for the harness runs
 * that tests share (test/helpers/harness-cache.mjs). It is made empty at the start of every
 * `npm test` / `npm run test:fast` / single-file run and removed at the end, so every shared run
 * is produced by the real lm_eval once per test run, never carried over from an earlier one.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';
import { repoRoot } from '../helpers/env.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Folder of this test run's shared harness runs (test/helpers/harness-cache.mjs). */
    harnessCache: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = path.join(repoRoot, '.cache', 'harness-runs', `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  project.provide('harnessCache', dir);
  return () => {
    const log = path.join(dir, 'log.jsonl');
    if (existsSync(log)) {
      const calls = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { what: string });
      const shared = calls.filter((c) => c.what === 'shared').length;
      console.log(`shared harness jobs (test/helpers/harness-cache.mjs): ${calls.length} calls, ${calls.length - shared} real lm_eval runs, ${shared} written back from a run earlier in this test run`);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
