import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { fractionScores, readModelMapping, readTargets } from '../../generator/core/logs/index.js';
import { fixtures, hasPython, hasSharedData, inCi, shared } from '../helpers/env.js';
import { codes, runPython } from './helpers.js';

describe('readModelMapping', () => {
  it('JSON: skips $comment keys, follows chains, keeps the first of two targets', async () => {
    const vfs = new MemoryVfs({ '/m.json': JSON.stringify({ $comment: 'x', a: 'b', b: 'C', same: 'same', bad: 3 }) });
    const { mapping, findings } = await readModelMapping(vfs, '/m.json');
    expect(mapping).toEqual({ a: 'C', b: 'C' });
    expect(codes(findings).sort()).toEqual(['mapping-bad-entry', 'mapping-chain']);
  });

  it('CSV with a header; an alias mapped twice is an error with its line', async () => {
    const vfs = new MemoryVfs({ '/m.csv': 'alias,canonical\nx,X\ny,Y\nx,Z\nlonely\n' });
    const { mapping, findings } = await readModelMapping(vfs, '/m.csv');
    expect(mapping).toEqual({ x: 'X', y: 'Y' });
    expect(findings.map((f) => [f.code, f.path.line])).toEqual([
      ['mapping-bad-entry', 5],
      ['mapping-duplicate-alias', 4],
    ]);
  });

  it.skipIf(!hasSharedData)('the shipped OpenHands → PACE mapping lands every OpenHands model but Nemotron on a PACE model name', async () => {
    const { mapping, findings } = await readModelMapping(nodeVfs, fixtures('logs', 'openhands-to-pace-mapping.json'));
    expect(findings).toEqual([]);
    const paceModels = new Set(readdirSync(shared('pace', 'results', 'standardized_results', 'aime25')).map((f) => f.replace(/\.csv$/, '')));
    const openhands = readdirSync(shared('openhands-index', 'results'));
    const unmapped = openhands.filter((m) => !paceModels.has(mapping[m] ?? m));
    expect(unmapped).toEqual(['Nemotron-3-Nano']);
  });
});

describe('readTargets', () => {
  it('per-instance files: resolved true/false → 1/0, null unobserved, other values rejected', async () => {
    const vfs = new MemoryVfs({
      '/t/m1/instance_results/swe.json': JSON.stringify({ a: { resolved: true }, b: { resolved: false }, c: { resolved: null }, d: { resolved: 'yes' } }),
      '/t/m2/instance_results/swe.json': JSON.stringify({ a: { resolved: false }, b: { resolved: true } }),
    });
    const { targets, findings, tally } = await readTargets(vfs, ['/t'], { mapping: { m2: 'M2' } });
    expect(targets).toHaveLength(1);
    const t = targets[0]!;
    expect(t.perInstance).toEqual({ M2: { a: 0, b: 1 }, m1: { a: 1, b: 0 } });
    // No aggregate given: derived from the per-instance outcomes, as fractions.
    expect(t.scale).toBe('fraction');
    expect(t.scores).toEqual({ M2: 0.5, m1: 0.5 });
    expect(t.provenance.derivedFromInstances).toEqual(['M2', 'm1']);
    expect(codes(findings)).toEqual(['target-bad-value', 'target-unscored']);
    expect(findings[0]!.path).toMatchObject({ file: '/t/m1/instance_results/swe.json', field: 'd.resolved' });
    expect(tally).toEqual({ read: 6, accepted: 4, rejected: 1, skipped: { 'resolved-null': 1 } });
  });

  it('aggregate CSV: wide and long forms, scale inferred per target and reported', async () => {
    const vfs = new MemoryVfs({
      '/a/wide.csv': 'model,swe,gaia\nm1,70.5,0.4\nm2,,0.5\n',
      '/b/long.csv': 'model,target,score\nm3,swe,12\n',
    });
    const { targets, findings } = await readTargets(vfs, ['/a/wide.csv', '/b/long.csv']);
    const byName = Object.fromEntries(targets.map((t) => [t.target, t]));
    expect(byName.gaia!.scale).toBe('fraction');
    expect(byName.gaia!.scores).toEqual({ m1: 0.4, m2: 0.5 });
    expect(byName.swe!.scale).toBe('percent');
    expect(byName.swe!.scores).toEqual({ m1: 70.5, m3: 12 });
    expect(fractionScores(byName.swe!)).toEqual({ m1: 0.705, m3: 0.12 });
    expect(codes(findings).filter((c) => c === 'target-scale-inferred')).toHaveLength(3);
  });

  it('two sources disagreeing on one model score: the first is kept and the second is an error', async () => {
    const vfs = new MemoryVfs({ '/a.json': JSON.stringify({ m: { swe: 0.5 } }), '/b.json': JSON.stringify({ m: { swe: 0.25 } }) });
    const { targets, findings } = await readTargets(vfs, ['/a.json', '/b.json'], { scale: 'fraction' });
    expect(targets[0]!.scores).toEqual({ m: 0.5 });
    expect(findings.map((f) => [f.code, f.severity, f.path.file])).toEqual([['target-duplicate', 'error', '/b.json']]);
  });
});

describe.skipIf(!hasSharedData)('readTargets on the real OpenHands Index', () => {
  const root = shared('openhands-index');

  it('15 models × 5 targets, published percent scores, per-instance outcomes; names mapped to PACE', async () => {
    const mapping = (await readModelMapping(nodeVfs, fixtures('logs', 'openhands-to-pace-mapping.json'))).mapping;
    const targetNames = (await readModelMapping(nodeVfs, fixtures('logs', 'openhands-to-pace-targets.json'))).mapping;
    const { targets, findings, tally } = await readTargets(nodeVfs, [root], { mapping, targetNames });
    expect(targets.map((t) => t.target)).toEqual(['commit0', 'gaia', 'swebench', 'swebench_multimodal', 'swtbench']);
    const swe = targets.find((t) => t.target === 'swebench')!;
    expect(swe.scale).toBe('percent');
    expect(Object.keys(swe.scores)).toHaveLength(15);
    expect(swe.scores['Claude-4.5-Opus']).toBe(76.6);
    expect(Object.keys(swe.perInstance!['Claude-4.5-Opus']!)).toHaveLength(500);
    expect((swe.provenance.metrics as Record<string, string>)['Claude-4.5-Opus']).toBe('accuracy');
    expect(tally.rejected).toBe(0);
    expect(findings.every((f) => f.severity === 'info')).toBe(true);
    // Nemotron's swt-bench run left 406 of 432 instances without a verdict: unobserved, not failures.
    const nemotron = findings.find((f) => f.code === 'target-unscored' && f.path.file!.includes('Nemotron-3-Nano/instance_results/swt-bench'));
    expect(nemotron?.args.count).toBe(406);
  });

  it.skipIf(!hasPython && !inCi)('per-instance outcomes and null counts match an independent Python read', async () => {
    const { targets, tally } = await readTargets(nodeVfs, [root]);
    const expected = runPython(
      `
import json, os, sys
root = os.path.join(sys.argv[1], 'results')
out, nulls = {}, 0
for model in sorted(os.listdir(root)):
    d = os.path.join(root, model, 'instance_results')
    for f in sorted(os.listdir(d)):
        data = json.load(open(os.path.join(d, f)))
        t = out.setdefault(f[:-5], {})
        t[model] = {k: int(v['resolved']) for k, v in data.items() if v['resolved'] is not None}
        nulls += sum(1 for v in data.values() if v['resolved'] is None)
print(json.dumps({'perInstance': out, 'nulls': nulls}))
`,
      [root],
    );
    expect(Object.fromEntries(targets.map((t) => [t.target, t.perInstance]))).toEqual(expected.perInstance);
    expect(tally.skipped?.['resolved-null']).toBe(expected.nulls);
  });
});
