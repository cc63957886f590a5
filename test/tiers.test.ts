import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/env.js';
import { SLOW_TESTS } from './tiers.js';
import { LONGEST_FIRST } from './setup/sequencer.js';

describe('test tiers', () => {
  it('the slow list names existing test files, once each', () => {
    expect(SLOW_TESTS.filter((f) => !existsSync(path.join(repoRoot, f)))).toEqual([]);
    expect(new Set(SLOW_TESTS).size).toBe(SLOW_TESTS.length);
  });

  it('the longest-first order names existing test files, once each', () => {
    expect(LONGEST_FIRST.filter((f) => !existsSync(path.join(repoRoot, f)))).toEqual([]);
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });

  it('npm test runs every file and npm run test:fast keeps the real-harness smoke tests', () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('vitest run');
    expect(pkg.scripts['test:fast']).toContain('vitest.fast.config.ts');
    for (const smoke of ['test/emit/harness-run.test.ts', 'test/logs/harness-live.test.ts', 'test/workflow/run-plan.test.ts']) expect(SLOW_TESTS).not.toContain(smoke);
  });

  it('CI prints the full suite\'s wall time', () => {
    const ci = readFileSync(path.join(repoRoot, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/started=\$\(date \+%s\)\nnpm test /);
    expect(ci).toContain('npm test wall time');
    // and each file's time with its hooks, which the order of test/setup/sequencer.ts comes from
    expect(ci).toContain('--reporter=./test/setup/file-times.ts');
  });
});
