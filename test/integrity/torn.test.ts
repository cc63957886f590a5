/**
 * Multi-file outputs commit as a set. A writer killed between two renames (simulated by a Vfs
 * that dies on its n-th atomic write, leaving its temp file behind as a real kill would) leaves
 * a set that the next load refuses with a clear finding, and the next run cleans the temp files.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { OutputFolder, verifyOutputSet } from '../../generator/core/kernel/output.js';
import type { Vfs } from '../../generator/core/kernel/vfs.js';
import { saveStore, tryLoadStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import { emitSuite } from '../../generator/core/emit/suite.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';

const dir = tempDir('aptpace-torn-');
const fast = ['--budget', '20', '--bootstrap', '5', '--nc-h', '2', '--nc-d', '2'];
const syn = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'torn' });
const store = path.join(dir, 'store');

/** Dies on the `after`+1-th atomic write: the temp file is on disk, the rename never happens. */
function killedAfter(after: number): Vfs {
  let writes = 0;
  return {
    ...nodeVfs,
    async writeFileAtomic(target, data) {
      if (writes++ < after) return nodeVfs.writeFileAtomic(target, data);
      writeFileSync(path.join(path.dirname(target), `.${path.basename(target)}.0123456789ab.tmp`), data);
      throw new Error('killed');
    },
  };
}

const leftovers = (d: string) => readdirSync(d).filter((n) => n.endsWith('.tmp'));

beforeAll(async () => {
  await saveStore(nodeVfs, store, syn);
});

describe('fit folder', () => {
  it('a fit killed after its first rename is refused by check, and the next fit cleans up', async () => {
    const fit = path.join(dir, 'fit');
    expect((await cli('fit', '--store', store, '--out', fit, ...fast)).code).toBe(0);
    const model = path.join(fit, 'model.json');
    const checkArgs = ['check', '--model-file', model, '--model', syn.matrix.models[0]!.name, '--store', store, '--force', '--allow-unproven'];
    expect((await cli(...checkArgs, '--out', path.join(dir, 'chk0'))).code).toBe(0);

    // A second fit --force: the set mark and model.json land, samples.json does not.
    const killed = new OutputFolder(killedAfter(2), fit, { force: true });
    const text = readFileSync(model, 'utf8').replace('"budget"', '"budget" ');
    await expect(killed.writeSet({ 'model.json': text, 'samples.json': '{}\n', 'proxy-set.json': '{}\n', 'skill-map.json': '{}\n' })).rejects.toThrow('killed');
    expect(leftovers(fit)).toEqual(['.samples.json.0123456789ab.tmp']);
    expect((await verifyOutputSet(nodeVfs, fit, 'fit')).map((f) => f.code)).toEqual(['output-set-torn']);
    const refused = await cli(...checkArgs, '--out', path.join(dir, 'chk1'), '--json');
    expect(refused.code).toBe(1);
    expect(refused.json.findings.map((f: { code: string }) => f.code)).toContain('output-set-torn');

    expect((await cli('fit', '--store', store, '--out', fit, ...fast, '--force')).code).toBe(0);
    expect(leftovers(fit)).toEqual([]);
    expect((await cli(...checkArgs, '--out', path.join(dir, 'chk2'))).code).toBe(0);
  });

  it('a file of the set edited afterwards is reported, naming it', async () => {
    const fit = path.join(dir, 'fit-edit');
    expect((await cli('fit', '--store', store, '--out', fit, ...fast)).code).toBe(0);
    writeFileSync(path.join(fit, 'samples.json'), '{"edited": true}\n');
    const found = await verifyOutputSet(nodeVfs, fit, 'fit');
    expect(found.map((f) => [f.code, f.path.file])).toEqual([['output-set-torn', path.join(fit, 'samples.json')]]);
  });
});

describe('score store', () => {
  it('a store killed after its first rename is refused on load; a rerun removes the temp files', async () => {
    const s = path.join(dir, 'store-torn');
    await saveStore(nodeVfs, s, syn);
    const other = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'torn-2' });
    // Write 1 = the set mark, write 2 = values.f64; observed.u8 and store.json never land.
    await expect(saveStore(killedAfter(2), s, other, { force: true })).rejects.toThrow('killed');
    const loaded = await tryLoadStore(nodeVfs, s);
    expect(loaded.store).toBeUndefined();
    expect(loaded.findings.map((f) => f.code)).toContain('store-hash-mismatch');
    expect(leftovers(s)).toEqual(['.observed.u8.0123456789ab.tmp']);
    await saveStore(nodeVfs, s, other, { force: true });
    expect(leftovers(s)).toEqual([]);
    expect((await tryLoadStore(nodeVfs, s)).store).toBeDefined();
  });
});

describe('check and evaluate report folders', () => {
  it('check writes its three files as a set', async () => {
    const fit = path.join(dir, 'fit-c');
    expect((await cli('fit', '--store', store, '--out', fit, ...fast)).code).toBe(0);
    const out = path.join(dir, 'chk-set');
    expect((await cli('check', '--model-file', path.join(fit, 'model.json'), '--model', syn.matrix.models[0]!.name, '--store', store, '--out', out, '--allow-unproven')).code).toBe(0);
    expect(existsSync(path.join(out, '.aptpace-set.check.json'))).toBe(true);
    expect(await verifyOutputSet(nodeVfs, out, 'check')).toEqual([]);
    writeFileSync(path.join(out, 'summary.md'), 'other run\n');
    expect((await verifyOutputSet(nodeVfs, out, 'check')).map((f) => f.code)).toEqual(['output-set-torn']);
  });
});

describe('emit suite', () => {
  it('an emit killed half way through an in-place update is detected and repaired by the next emit', async () => {
    const { questions } = await readQuestions(nodeVfs, [fixtures('questions', 'balanced-plan.jsonl')]);
    const out = path.join(dir, 'suite');
    expect((await emitSuite(nodeVfs, questions, { suite: 'aptpace_torn', outDir: out })).findings.filter((f) => f.severity === 'error')).toEqual([]);
    const fewer = questions.slice(0, Math.ceil(questions.length / 2));
    // Write 1 = manifest marked writing, write 2 = the first suite file; then killed.
    const killed = await emitSuite(killedAfter(2), fewer, { suite: 'aptpace_torn', outDir: out });
    expect(killed.findings.map((f) => f.code)).toContain('emit-target-unwritable');
    expect(JSON.parse(readFileSync(path.join(out, 'aptpace-manifest.json'), 'utf8')).state).toBe('writing');
    const repaired = await emitSuite(nodeVfs, fewer, { suite: 'aptpace_torn', outDir: out });
    expect(repaired.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(repaired.findings.map((f) => f.code)).toContain('emit-suite-torn');
    expect(JSON.parse(readFileSync(path.join(out, 'aptpace-manifest.json'), 'utf8')).state).toBeUndefined();
    expect(readdirSync(out).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});
