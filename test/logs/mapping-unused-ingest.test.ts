import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

// One mapping file serves the score tables and the agentic targets: an alias that only the
// target folders use (OpenHands names) is used, and must not be reported as unused by ingest.
describe.skipIf(!hasSharedData)('ingest: mapping-unused counts aliases used by targets', () => {
  it('reports no used alias as unused on the shared PACE tables + OpenHands targets', async () => {
    const out = path.join(tempDir(), 'store');
    const res = await cli('ingest', '--tables', shared('pace', 'results', 'standardized_results'), '--targets', shared('openhands-index'),
      '--mapping', fixtures('logs', 'openhands-to-pace-mapping.json'), '--target-names', fixtures('logs', 'openhands-to-pace-targets.json'),
      '--duplicates', 'first', '--out', out, '--json');
    const unused = res.json.findings.filter((f: { code: string }) => f.code === 'mapping-unused');
    for (const f of unused) expect(f.args.unused).not.toContain('claude-opus-4-5');
    expect(unused).toEqual([]);
  }, 300_000);
});
