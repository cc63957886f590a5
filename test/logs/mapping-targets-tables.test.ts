/** Per-instance target tables (JSONL / CSV), `{id: 0|1}` files, and mapping-unused over sources and targets together. */
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { readTargets } from '../../generator/core/logs/index.js';
import { loadPaceInputs } from '../../generator/core/pace/inputs/inputs.js';
import { codes } from './helpers.js';

describe('per-instance target tables', () => {
  it('JSONL: model, instance, 0/1 or booleans; null unobserved; a bad outcome is rejected with file, line and field', async () => {
    const lines = [
      { model: 'm1', instance: 'a', resolved: 1 },
      { model: 'm1', instance: 'b', resolved: false },
      { model: 'm1', instance: 'c', resolved: null },
      { model: 'm2', instance_id: 'a', resolved: true },
      { model: 'm2', instance: 'b', resolved: 0 },
      { model: 'm2', instance: 'c', resolved: 'maybe' },
      { model: 'm3', instance: 'a', resolved: 1, target: 'other' },
    ];
    const vfs = new MemoryVfs({ '/t/swe.jsonl': lines.map((l) => JSON.stringify(l)).join('\n') + '\n' });
    const { targets, findings, tally } = await readTargets(vfs, ['/t']);
    expect(targets.map((t) => t.target)).toEqual(['other', 'swe']);
    const swe = targets.find((t) => t.target === 'swe')!;
    expect(swe.perInstance).toEqual({ m1: { a: 1, b: 0 }, m2: { a: 1, b: 0 } });
    expect(swe.scores).toEqual({ m1: 0.5, m2: 0.5 });
    const bad = findings.find((f) => f.code === 'target-bad-value')!;
    expect(bad.path).toEqual({ file: '/t/swe.jsonl', line: 6, field: 'resolved' });
    expect(tally.rejected).toBe(1);
    expect(tally.accepted).toBe(5);
  });

  it('CSV with an instance column is per-instance (true/false, 0/1, empty); model,target,score stays an aggregate table', async () => {
    const vfs = new MemoryVfs({
      '/t/gaia.csv': 'model,instance_id,resolved\nm1,q1,true\nm1,q2,0\nm2,q1,1\nm2,q2,\n',
      '/t/agg.csv': 'model,target,score\nm1,swe,0.4\nm2,swe,0.6\n',
    });
    const { targets, findings } = await readTargets(vfs, ['/t']);
    const gaia = targets.find((t) => t.target === 'gaia')!;
    expect(gaia.perInstance).toEqual({ m1: { q1: 1, q2: 0 }, m2: { q1: 1 } });
    expect(gaia.scores).toEqual({ m1: 0.5, m2: 1 });
    expect(targets.find((t) => t.target === 'swe')!.scores).toEqual({ m1: 0.4, m2: 0.6 });
    expect(codes(findings).filter((c) => c !== 'target-scale-inferred' && c !== 'target-unscored')).toEqual([]);
  });

  it('{id: 0|1} per-instance JSON is read like {id: {resolved: 0|1}}', async () => {
    const vfs = new MemoryVfs({
      '/t/m1/swe.json': JSON.stringify({ a: 1, b: 0, c: null }),
      '/t/m2/swe.json': JSON.stringify({ a: { resolved: 1 }, b: { resolved: 0 } }),
    });
    const { targets, findings } = await readTargets(vfs, ['/t']);
    expect(codes(findings).filter((c) => c !== 'target-unscored')).toEqual([]);
    expect(targets[0]!.perInstance).toEqual({ m1: { a: 1, b: 0 }, m2: { a: 1, b: 0 } });
  });
});

describe('mapping-unused over sources and targets', () => {
  it('an alias used only by the target files is not reported unused; a truly unused one is', async () => {
    const vfs = new MemoryVfs({
      '/map.json': JSON.stringify({ 'src-a': 'A', 'tgt-b': 'B', ghost: 'G' }),
      '/src/task1/src-a.csv': 'id,score\n0,1\n1,0\n',
      '/src/task1/B.csv': 'id,score\n0,0\n1,1\n',
      '/tgt/tgt-b/swe.json': JSON.stringify({ x: 1 }),
      '/tgt/A/swe.json': JSON.stringify({ x: 0 }),
    });
    const inputs = await loadPaceInputs(vfs, { sources: ['/src'], targets: ['/tgt'], mapping: '/map.json' });
    const unused = inputs.findings.filter((f) => f.code === 'mapping-unused');
    expect(unused.map((f) => f.args.unused)).toEqual([['ghost']]);
    expect(inputs.targets[0]!.scores).toEqual({ A: 0, B: 1 });
  });
});
