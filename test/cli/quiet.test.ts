import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe('-q/--quiet', () => {
  it('ingest prints the store line only: no coverage table, no tallies', async () => {
    const dir = tempDir();
    const args = ['ingest', '--sources', fixtures('example', 'sources'), '--targets', fixtures('example', 'targets')];
    const loud = await cli(...args, '--out', path.join(dir, 'loud'));
    expect(loud.code).toBe(0);
    expect(loud.stdout).toMatch(/^coverage: /m);
    const quiet = await cli(...args, '--out', path.join(dir, 'quiet'), '-q');
    expect(quiet.code).toBe(0);
    expect(quiet.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^store: .*quiet \(24 × 1200, 28800 observed\)$/)]);
    expect(quiet.stderr).toBe('');
  });
});
