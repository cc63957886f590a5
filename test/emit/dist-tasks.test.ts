import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { DIST_ARGS, DIST_DIR } from './support.js';

function files(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    // A harness run beside the suite may leave Python's bytecode cache; it is not content.
    if (e.name === '__pycache__') continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    out.push(...(e.isDirectory() ? files(dir, child) : [child]));
  }
  return out.sort();
}

describe('dist-tasks', () => {
  it('is exactly what the documented command rebuilds from the fixtures', async () => {
    const out = path.join(tempDir('aptpace-dist-'), 'aptpace_fixtures');
    const r = await cli(...DIST_ARGS, out, '--quiet');
    expect(r.code, r.stderr).toBe(0);
    const committed = files(DIST_DIR);
    expect(files(out)).toEqual(committed);
    for (const f of committed) {
      // Compare bytes, not text: a stray newline or encoding change must fail too.
      expect(Buffer.compare(readFileSync(path.join(out, f)), readFileSync(path.join(DIST_DIR, f))), `${f} differs; rebuild dist-tasks (see dist-tasks/README.md)`).toBe(0);
    }
  });

  it('documents the same command the test replays', () => {
    const readme = readFileSync(path.join(DIST_DIR, '..', 'README.md'), 'utf8');
    expect(readme).toContain(`npm run aptpace -- ${DIST_ARGS.join(' ')} dist-tasks/aptpace_fixtures`);
  });
});
