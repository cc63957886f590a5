/**
 * The build's worker threads (the filter's core, the tree fits) never keep the process alive
 * once its work is done: a build of a small corpus, where a worker is started but a kind has
 * too few drafts to send it a job, exits by itself. Run through the built CLI, the way a user
 * runs it (vitest cannot start the workers from TypeScript sources).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtures, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const cli = path.join(repoRoot, 'build', 'generator', 'cli', 'main.js');

describe.skipIf(!existsSync(cli))('build exits when its work is done', () => {
  it.each([['fixtures/ctf', fixtures('ctf')], ['fixtures/new-kinds/setup-errors.jsonl', fixtures('new-kinds', 'setup-errors.jsonl')]])('%s: the process ends on its own with the worker threads on', (_, input) => {
    const out = path.join(tempDir(), 'q.jsonl');
    const run = spawnSync(process.execPath, [cli, 'build', input, '--include-unproven', '--seed', '0', '--out', out, '-q'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, APTPACE_FILTER_THREAD: '' } });
    expect(run.signal, `killed after 60 s: the process did not exit\n${run.stderr}`).toBeNull();
    expect(run.status).toBe(0);
    expect(existsSync(out)).toBe(true);
  });
});
