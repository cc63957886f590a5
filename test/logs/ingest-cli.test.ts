import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadStore } from '../../generator/core/logs/index.js';
import { cli } from '../helpers/cli.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { cellsOf, copyTree } from './helpers.js';

const OUT = fixtures('logs', 'harness-output', 'out');

describe('aptpace ingest', () => {
  it('writes a loadable store, prints a coverage summary, refuses to overwrite, and is byte-identical with --force', async () => {
    const store = path.join(tempDir(), 'store');
    const first = await cli('ingest', OUT, '--out', store);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('coverage: 3 model(s) × 3 task(s), 22 instance(s); 54 of 66 cells observed');
    expect(first.stdout).toMatch(/org\/model-c:v1\s+5\/6\s+5\/8\s+-/);
    const bytes = readFileSync(path.join(store, 'values.f64'));
    const manifest = readFileSync(path.join(store, 'store.json'));

    const again = await cli('ingest', OUT, '--out', store);
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('output-exists');

    const forced = await cli('ingest', OUT, '--out', store, '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(path.join(store, 'values.f64')).equals(bytes)).toBe(true);
    expect(readFileSync(path.join(store, 'store.json')).equals(manifest)).toBe(true);

    const loaded = await loadStore(nodeVfs, store);
    expect(loaded.matrix.models.map((m) => m.name)).toEqual(['model-a', 'model-b', 'org/model-c:v1']);
    expect((loaded.matrix.provenance.metricChoice as Record<string, unknown>).aptd_gen).toEqual({ metric: 'exact_match', filter: 'strict-match', reason: 'preferred' });
  });

  it('--json carries shape, coverage, metrics, tallies and supersessions', async () => {
    const store = path.join(tempDir(), 'store');
    const r = await cli('ingest', OUT, '--out', store, '--json', '--metric', 'aptd_mc=acc_norm');
    expect(r.code).toBe(0);
    expect(r.json.data).toMatchObject({
      shape: [3, 22],
      observed: 54,
      tasks: ['aptd_gen', 'aptd_mc', 'aptd_mc_x'],
      metrics: { aptd_gen: 'exact_match,strict-match', aptd_mc: 'acc_norm', aptd_mc_x: 'acc' },
      tallies: { samples: { read: 71, accepted: 54, rejected: 0 } },
    });
    expect(r.json.data.superseded).toHaveLength(1);
    expect(r.json.data.coverage['model-b'].aptd_mc).toEqual({ observed: 8, expected: 8 });
  });

  it('exit 1 when anything was rejected (the store is still written), exit 1 on warnings only with --strict', async () => {
    const root = copyTree(OUT);
    const file = path.join(root, 'model-b', 'samples_aptd_mc_2026-11-29T08-32-45.130167.jsonl');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, -40));
    const store = path.join(tempDir(), 'store');
    const bad = await cli('ingest', root, '--out', store);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error\[samples-truncated-line\] .*samples_aptd_mc_2026-11-29T08-32-45\.130167\.jsonl:8/);
    expect(cellsOf((await loadStore(nodeVfs, store)).matrix)['model-b']!['aptd_mc/6']).toBeDefined();

    const warnOnly = copyTree(OUT);
    rmSync(path.join(warnOnly, 'model-b', 'samples_aptd_gen_2026-11-29T08-32-45.130167.jsonl'));
    expect((await cli('ingest', warnOnly, '--out', path.join(tempDir(), 's'))).code).toBe(0);
    expect((await cli('ingest', warnOnly, '--out', path.join(tempDir(), 's'), '--strict')).code).toBe(1);
  });

  it('usage errors exit 2', async () => {
    const out = path.join(tempDir(), 's');
    expect((await cli('ingest', '--out', out)).code).toBe(2);
    expect((await cli('ingest', OUT)).code).toBe(2);
    expect((await cli('ingest', OUT, '--out', out, '--metric', 'nonsense')).code).toBe(2);
    expect((await cli('ingest', OUT, '--out', out, '--run', 'model-a')).code).toBe(2);
    expect((await cli('ingest', OUT, '--out', out, '--duplicates', 'sometimes')).code).toBe(2);
  });

  it.skipIf(!hasSharedData)('PACE tables + OpenHands targets with the shipped mappings: one store, names aligned', async () => {
    const store = path.join(tempDir(), 'store');
    const args = [
      'ingest', '--tables', shared('pace', 'results', 'standardized_results'),
      '--targets', shared('openhands-index'),
      '--mapping', fixtures('logs', 'openhands-to-pace-mapping.json'),
      '--target-names', fixtures('logs', 'openhands-to-pace-targets.json'),
      '--out', store,
    ];
    // gpqa/diamond repeats its ids with other scores: rejected unless a policy is chosen.
    expect((await cli(...args)).code).toBe(1);
    const ok = await cli(...args, '--duplicates', 'first', '--force', '--json');
    expect(ok.code).toBe(0);
    const { matrix, targets } = await loadStore(nodeVfs, store);
    expect(matrix.models).toHaveLength(19);
    expect(targets.map((t) => t.target)).toEqual(['commit0', 'gaia', 'swebench', 'swebench_multimodal', 'swtbench']);
    const withSources = new Set(matrix.models.map((m) => m.name));
    const targetModels = Object.keys(targets.find((t) => t.target === 'swebench')!.scores);
    expect(targetModels.filter((m) => !withSources.has(m))).toEqual(['Nemotron-3-Nano']);
  });
});
