/**
 * The adversarial filter spreads its work over worker threads (its core, half of its tree fits,
 * half of each choosing round's drafts); the questions must be the same to the byte as when all
 * of it runs in the build's own thread (APTPACE_FILTER_THREAD=0). Run through the built CLI, the
 * way a user runs it (vitest cannot start the workers from TypeScript sources), on the real
 * deep-research runs, whose dr_plan_mcq has enough drafts to be filtered.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasSharedData, repoRoot, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const cli = path.join(repoRoot, 'build', 'generator', 'cli', 'main.js');

describe.skipIf(!existsSync(cli) || !hasSharedData)('filter threads', () => {
  it('the questions are the same with the worker threads on and off', () => {
    const dir = tempDir('aptpace-threads-');
    const outputs = ['', '0'].map((flag) => {
      const out = path.join(dir, `q${flag || 'on'}.jsonl`);
      const run = spawnSync(process.execPath, [cli, 'build', shared('trajectories'), '--include-unproven', '--seed', '1', '--kinds', 'dr_plan_mcq', '--out', out, '--json'], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, APTPACE_FILTER_THREAD: flag } });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).data.skipped['dr_plan_mcq:adversary-solvable']).toBeGreaterThan(0);
      return readFileSync(out, 'utf8');
    });
    expect(outputs[0]!.length).toBeGreaterThan(0);
    expect(outputs[0] === outputs[1]).toBe(true);
  }, 240_000);
});
