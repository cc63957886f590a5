import { readFileSync, writeFileSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { OutputError } from '../../generator/core/kernel/output.js';
import { loadStore, mergeMatrices, saveStore, StoreError, tryLoadStore, type ScoreMatrix, type TargetTable } from '../../generator/core/logs/index.js';
import { hasPython, inCi } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { cellsOf, codes, runPython } from './helpers.js';

function matrix(models: string[], keys: string[], cells: Record<string, Record<string, number>>, hashes: Record<string, string> = {}): ScoreMatrix {
  const values = new Float64Array(models.length * keys.length);
  const observed = new Uint8Array(models.length * keys.length);
  models.forEach((m, i) =>
    keys.forEach((k, j) => {
      const v = cells[m]?.[k];
      if (v !== undefined) {
        values[i * keys.length + j] = v;
        observed[i * keys.length + j] = 1;
      }
    }),
  );
  return {
    models: models.map((name) => ({ name, sources: [`${name}.src`] })),
    instances: keys.map((key) => {
      const cut = key.lastIndexOf('/');
      return { key, task: key.slice(0, cut), doc_id: key.slice(cut + 1), metric: 'acc', ...(hashes[key] ? { doc_hash: hashes[key] } : {}) };
    }),
    values,
    observed,
    provenance: { note: 'test' },
  };
}

const target: TargetTable = { target: 'swe', scores: { a: 0.5 }, scale: 'fraction', perInstance: { a: { x: 1, y: 0 } }, provenance: {} };

describe('matrix store', () => {
  it('round-trips values, mask, indexes, provenance and targets; writes are byte-identical', async () => {
    const m = matrix(['a', 'b'], ['t/0', 't/1', 't/2'], { a: { 't/0': 0.25, 't/2': 1 }, b: { 't/1': -3.5 } });
    const dir1 = path.join(tempDir(), 's');
    const dir2 = path.join(tempDir(), 's');
    await saveStore(nodeVfs, dir1, { matrix: m, targets: [target] });
    await saveStore(nodeVfs, dir2, { matrix: m, targets: [target] });
    for (const f of ['store.json', 'values.f64', 'observed.u8']) {
      expect(readFileSync(path.join(dir1, f)).equals(readFileSync(path.join(dir2, f)))).toBe(true);
    }
    const loaded = await loadStore(nodeVfs, dir1);
    expect(cellsOf(loaded.matrix)).toEqual(cellsOf(m));
    expect(Array.from(loaded.matrix.observed)).toEqual([1, 0, 1, 0, 1, 0]);
    expect(loaded.matrix.models).toEqual(m.models);
    expect(loaded.matrix.instances).toEqual(m.instances);
    expect(loaded.matrix.provenance).toEqual({ note: 'test' });
    expect(loaded.targets).toEqual([target]);
    expect(readFileSync(path.join(dir1, 'values.f64')).length).toBe(6 * 8);
  });

  it('missing cells are stored as 0 in values and 0 in the mask, whatever the placeholder was', async () => {
    const m = matrix(['a'], ['t/0', 't/1'], { a: { 't/0': 1 } });
    m.values[1] = Number.NaN;
    const vfs = new MemoryVfs();
    await saveStore(vfs, '/s', { matrix: m });
    const bytes = vfs.files.get('/s/values.f64')!;
    expect(Array.from(new Float64Array(bytes.slice().buffer))).toEqual([1, 0]);
  });

  it('refuses to replace an existing store without force', async () => {
    const vfs = new MemoryVfs();
    const m = matrix(['a'], ['t/0'], { a: { 't/0': 1 } });
    await saveStore(vfs, '/s', { matrix: m });
    await expect(saveStore(vfs, '/s', { matrix: m })).rejects.toBeInstanceOf(OutputError);
    await saveStore(vfs, '/s', { matrix: matrix(['a'], ['t/0'], { a: { 't/0': 0 } }) }, { force: true });
    expect(cellsOf((await loadStore(vfs, '/s')).matrix)).toEqual({ a: { 't/0': 0 } });
  });

  it('validates on load: hash, size, version, missing file, mask bytes', async () => {
    const m = matrix(['a', 'b'], ['t/0', 't/1'], { a: { 't/0': 1 }, b: { 't/1': 0 } });
    const fresh = async () => {
      const dir = path.join(tempDir(), 's');
      await saveStore(nodeVfs, dir, { matrix: m });
      return dir;
    };
    let dir = await fresh();
    const values = readFileSync(path.join(dir, 'values.f64'));
    values[3] = values[3]! ^ 0xff;
    writeFileSync(path.join(dir, 'values.f64'), values);
    expect(codes((await tryLoadStore(nodeVfs, dir)).findings)).toEqual(['store-hash-mismatch']);
    await expect(loadStore(nodeVfs, dir)).rejects.toBeInstanceOf(StoreError);

    dir = await fresh();
    truncateSync(path.join(dir, 'observed.u8'), 3);
    expect(codes((await tryLoadStore(nodeVfs, dir)).findings)).toEqual(['store-size-mismatch']);

    dir = await fresh();
    const manifest = JSON.parse(readFileSync(path.join(dir, 'store.json'), 'utf8'));
    writeFileSync(path.join(dir, 'store.json'), JSON.stringify({ ...manifest, version: 99 }));
    expect(codes((await tryLoadStore(nodeVfs, dir)).findings)).toEqual(['store-format-version']);
    writeFileSync(path.join(dir, 'store.json'), JSON.stringify({ ...manifest, models: manifest.models.slice(1) }));
    expect(codes((await tryLoadStore(nodeVfs, dir)).findings)).toEqual(['store-bad-manifest']);

    expect(codes((await tryLoadStore(nodeVfs, path.join(tempDir(), 'none'))).findings)).toEqual(['store-missing-file']);

    const vfs = new MemoryVfs();
    await saveStore(vfs, '/s', { matrix: m });
    const mask = vfs.files.get('/s/observed.u8')!;
    mask[0] = 7;
    const manifestMem = JSON.parse(new TextDecoder().decode(vfs.files.get('/s/store.json')!));
    const { createHash } = await import('node:crypto');
    manifestMem.files.observed.sha256 = createHash('sha256').update(mask).digest('hex');
    vfs.files.set('/s/store.json', new TextEncoder().encode(JSON.stringify(manifestMem)));
    expect(codes((await tryLoadStore(vfs, '/s')).findings)).toEqual(['store-bad-mask']);
  });

  it.skipIf(!hasPython && !inCi)('values.f64 is little-endian float64 row-major, as numpy reads it', async () => {
    const m = matrix(['a', 'b'], ['t/0', 't/1', 't/2'], { a: { 't/0': 0.1, 't/1': 1e-300, 't/2': -2 }, b: { 't/2': 12345.678 } });
    const dir = path.join(tempDir(), 's');
    await saveStore(nodeVfs, dir, { matrix: m });
    const got = runPython(
      `
import json, sys, numpy as np
d = sys.argv[1]
meta = json.load(open(d + '/store.json'))
v = np.fromfile(d + '/values.f64', dtype='<f8').reshape(meta['shape'])
o = np.fromfile(d + '/observed.u8', dtype=np.uint8).reshape(meta['shape'])
print(json.dumps({'values': v.tolist(), 'observed': o.tolist()}))
`,
      [dir],
    );
    expect(got).toEqual({ values: [[0.1, 1e-300, -2], [0, 0, 12345.678]], observed: [[1, 1, 1], [0, 0, 1]] });
  });
});

describe('mergeMatrices', () => {
  it('unions models and instances; equal cells merge; a different value is a conflict and the first is kept', () => {
    const a = matrix(['m1', 'm2'], ['t/0', 't/1'], { m1: { 't/0': 1, 't/1': 0 }, m2: { 't/0': 0 } });
    const b = matrix(['m2', 'm3'], ['t/1', 'u/0'], { m2: { 't/1': 1 }, m3: { 'u/0': 0.5 } });
    const b2 = matrix(['m1'], ['t/0'], { m1: { 't/0': 0 } });
    const { matrix: merged, findings } = mergeMatrices(a, b);
    expect(findings).toEqual([]);
    expect(cellsOf(merged)).toEqual({ m1: { 't/0': 1, 't/1': 0 }, m2: { 't/0': 0, 't/1': 1 }, m3: { 'u/0': 0.5 } });
    expect(merged.models.find((m) => m.name === 'm2')!.sources).toEqual(['m2.src']);

    const clash = mergeMatrices(a, b2);
    expect(cellsOf(clash.matrix).m1).toEqual({ 't/0': 1, 't/1': 0 });
    expect(clash.findings.map((f) => [f.code, f.args.model, f.args.instance, f.args.value, f.args.kept])).toEqual([['cell-conflict', 'm1', 't/0', 0, 1]]);
  });

  it('an instance with a different doc_hash is not merged from the second matrix', () => {
    const a = matrix(['m1'], ['t/0'], { m1: { 't/0': 1 } }, { 't/0': 'aaa' });
    const b = matrix(['m2'], ['t/0', 't/1'], { m2: { 't/0': 0, 't/1': 1 } }, { 't/0': 'bbb', 't/1': 'ccc' });
    const { matrix: merged, findings } = mergeMatrices(a, b);
    expect(codes(findings)).toEqual(['instance-hash-conflict']);
    expect(cellsOf(merged)).toEqual({ m1: { 't/0': 1 }, m2: { 't/1': 1 } });
    expect(merged.instances.find((i) => i.key === 't/0')!.doc_hash).toBe('aaa');
  });

  it('fit and evaluate inputs report a cell the store and the score tables disagree on, naming both sides', async () => {
    const { loadPaceInputs } = await import('../../generator/core/pace/inputs/inputs.js');
    const vfs = new MemoryVfs({ '/tables/t/m1.csv': 'id,score\n0,0\n1,1\n' });
    await saveStore(vfs, '/store', { matrix: matrix(['m1'], ['t/0'], { m1: { 't/0': 1 } }) });
    const heard: string[] = [];
    const inputs = await loadPaceInputs(vfs, { store: '/store', sources: ['/tables'] }, { onFinding: (f) => void heard.push(f.code) });
    const conflict = inputs.findings.filter((f) => f.code === 'cell-conflict');
    expect(conflict.map((f) => [f.args.model, f.args.instance, f.args.value, f.args.kept])).toEqual([['m1', 't/0', 0, 1]]);
    expect(conflict[0]!.path.file).toContain('score tables');
    expect(conflict[0]!.args.keptFrom).toContain('/store');
    expect(heard).toContain('cell-conflict');
    expect(cellsOf(inputs.matrix!).m1).toEqual({ 't/0': 1, 't/1': 1 });
  });
});
