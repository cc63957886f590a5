import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasLmEval, inCi, repoRoot, venvBin } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * test/python-site/sitecustomize.py keeps the index of the harness's built-in tasks between the
 * test run's lm_eval calls. It must give the harness's own index, entry for entry, and be rebuilt
 * when a built-in file changes.
 */
const SCRIPT = path.join(repoRoot, 'test', 'python', 'index-cache.py');
const SITE = path.join(repoRoot, 'test', 'python-site');
const python = path.join(venvBin, 'python');

function index(env: NodeJS.ProcessEnv): Record<string, [string, string]> {
  const r = spawnSync(python, [SCRIPT, 'index', path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures')], { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  expect(r.status, r.stderr.slice(-2000)).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

describe.skipIf(!hasLmEval && !inCi)('the test run\'s cache of the harness\'s built-in task index', () => {
  it('gives the harness\'s own index (built-in and included tasks) from a cold and a warm cache', () => {
    const cache = tempDir('aptpace-index-cache-');
    const { PYTHONPATH: _, APTPACE_LMEVAL_INDEX_CACHE: __, ...plain } = process.env;
    const own = index(plain);
    const withCache = { ...plain, PYTHONPATH: SITE, APTPACE_LMEVAL_INDEX_CACHE: cache };
    const cold = index(withCache);
    expect(readdirSync(cache).filter((f) => f.endsWith('.pickle'))).toHaveLength(1);
    const warm = index(withCache);
    expect(Object.keys(own).length).toBeGreaterThan(1000);
    expect(own.aptpace_fixtures?.[0]).toBe('GROUP');
    expect(cold).toEqual(own);
    expect(warm).toEqual(own);
  }, 180_000);

  it('keys the cache by the harness version and every YAML file\'s name, size and time', () => {
    const r = spawnSync(python, [SCRIPT, 'key'], { cwd: repoRoot, env: { ...process.env, PYTHONPATH: SITE, APTPACE_LMEVAL_INDEX_CACHE: '' }, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ stable: true, distinct: true });
  });
});
