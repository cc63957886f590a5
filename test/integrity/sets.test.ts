/**
 * One writer per output folder, one set manifest per command, and consumers that refuse a
 * torn or mixed set: plan --suite, fit --suite and the suite's own loader inside lm_eval.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { repoRoot } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { OUTPUT_LOCK_FILE, OutputFolder, outputSetFile, verifyOutputSet } from '../../generator/core/kernel/output.js';
import type { Vfs } from '../../generator/core/kernel/vfs.js';

const dir = tempDir('aptpace-sets-');
const python = path.join(repoRoot, '.venv', 'bin', 'python');

/** A Vfs whose atomic writes wait at a gate after writing their temp file, as a slow disk would. */
function gated(): { vfs: Vfs; open: () => void; reached: Promise<void> } {
  let open!: () => void;
  let reach!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const reached = new Promise<void>((r) => (reach = r));
  return {
    open,
    reached,
    vfs: {
      ...nodeVfs,
      async writeFileAtomic(target, data) {
        writeFileSync(path.join(path.dirname(target), `.${path.basename(target)}.aaaaaaaaaaaa.tmp`), data);
        reach();
        await gate;
        await nodeVfs.writeFileAtomic(target, data);
        await nodeVfs.remove(path.join(path.dirname(target), `.${path.basename(target)}.aaaaaaaaaaaa.tmp`));
      },
    },
  };
}

describe('one writer per output folder', () => {
  it('a second writer while the first writes gets output-locked; it deletes none of the first one’s temp files', async () => {
    const out = path.join(dir, 'store');
    const first = gated();
    const writing = new OutputFolder(first.vfs, out, { force: true, set: 'ingest' }).writeSet({ 'a.bin': 'first\n', 'b.bin': 'first\n' });
    await first.reached;
    const temps = readdirSync(out).filter((n) => n.endsWith('.tmp'));
    expect(temps.length).toBe(1);
    await expect(new OutputFolder(nodeVfs, out, { force: true, set: 'ingest' }).writeSet({ 'a.bin': 'second\n', 'b.bin': 'second\n' })).rejects.toMatchObject({ code: 'output-locked' });
    expect(readdirSync(out).filter((n) => n.endsWith('.tmp'))).toEqual(temps);
    first.open();
    await writing;
    expect(readFileSync(path.join(out, 'a.bin'), 'utf8')).toBe('first\n');
    expect(readFileSync(path.join(out, 'b.bin'), 'utf8')).toBe('first\n');
    expect(existsSync(path.join(out, OUTPUT_LOCK_FILE))).toBe(false);
    expect(await verifyOutputSet(nodeVfs, out, 'ingest')).toEqual([]);
  });

  it('a command writing into a folder another live process holds exits 2 naming the lock, and writes nothing', async () => {
    const out = path.join(dir, 'plans-locked');
    mkdirSync(out);
    writeFileSync(path.join(out, OUTPUT_LOCK_FILE), `${process.pid}\n`);
    const refs = ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ref-${n}, model: dummy, model_args: pretrained=ref-${n}, scores: {swe-bench: 0.${i + 2}}}`);
    const reference = path.join(dir, 'locked.yaml');
    writeFileSync(reference, `format: aptpace-reference/1\nsuite: {path: ${path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures')}}\nreferences:\n${refs.join('\n')}\n`);
    const res = await cli('plan', '--reference', reference, '--out', out);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('another aptpace process');
    expect(readdirSync(out)).toEqual([OUTPUT_LOCK_FILE]);
  });

  it('a lock left by a process that no longer runs is taken over', async () => {
    const out = path.join(dir, 'stale');
    mkdirSync(out);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(path.join(out, OUTPUT_LOCK_FILE), `${dead}\n`);
    await new OutputFolder(nodeVfs, out, { set: 'check' }).writeSet({ 'result.json': '{}\n' });
    expect(readFileSync(path.join(out, 'result.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(path.join(out, OUTPUT_LOCK_FILE))).toBe(false);
  });
});

describe('one manifest per command', () => {
  it('evaluate writing into a torn fit folder does not hide the tear', async () => {
    const out = path.join(dir, 'fit');
    await new OutputFolder(nodeVfs, out, { set: 'fit' }).writeSet({ 'model.json': '{}\n', 'samples.json': '{}\n' });
    // A second fit killed after marking its set `writing`.
    writeFileSync(path.join(out, outputSetFile('fit')), JSON.stringify({ format: 'aptpace-output-set/1', set: 'fit', state: 'writing', files: {} }));
    await new OutputFolder(nodeVfs, out, { set: 'evaluate', force: true }).writeSet({ 'loocv.json': '{}\n', 'loocv.md': '# x\n' });
    expect((await verifyOutputSet(nodeVfs, out, 'fit')).map((f) => f.code)).toEqual(['output-set-torn']);
    expect(await verifyOutputSet(nodeVfs, out, 'evaluate')).toEqual([]);
  });

  it('a model.json that is not part of the fit set is refused as foreign', async () => {
    const out = path.join(dir, 'fit-foreign');
    await new OutputFolder(nodeVfs, out, { set: 'fit' }).writeSet({ 'samples.json': '{}\n' });
    writeFileSync(path.join(out, 'model.json'), '{}\n');
    expect((await verifyOutputSet(nodeVfs, out, 'fit', ['model.json'])).map((f) => f.code)).toEqual(['output-set-foreign']);
  });
});

describe('consumers refuse a torn or mixed suite', () => {
  const suite = path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures');
  const copy = (name: string) => {
    const to = path.join(dir, name);
    cpSync(suite, to, { recursive: true });
    return to;
  };
  const markWriting = (d: string) => {
    const file = path.join(d, 'aptpace-manifest.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), state: 'writing' }, null, 2));
  };
  const firstData = (d: string) => path.join(d, 'data', readdirSync(path.join(d, 'data')).filter((f) => f.endsWith('.test.jsonl')).sort()[0]!);
  const reference = (d: string) => {
    const file = path.join(dir, `${path.basename(d)}.yaml`);
    const refs = ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ref-${n}, model: dummy, model_args: pretrained=ref-${n}, scores: {swe-bench: 0.${i + 2}}}`);
    writeFileSync(file, `format: aptpace-reference/1\nsuite: {path: ${d}}\nreferences:\n${refs.join('\n')}\n`);
    return file;
  };

  it('plan --suite: a suite marked writing, or with a swapped data file, is refused with suite-set-torn', async () => {
    const torn = copy('suite-torn');
    markWriting(torn);
    const res = await cli('plan', '--reference', reference(torn), '--out', path.join(dir, 'plan-torn'), '--json');
    expect(res.code).toBe(1);
    expect(res.json.findings.map((f: { code: string }) => f.code)).toContain('suite-set-torn');
    expect(existsSync(path.join(dir, 'plan-torn'))).toBe(false);

    const mixed = copy('suite-mixed');
    writeFileSync(firstData(mixed), `${readFileSync(firstData(mixed), 'utf8').split('\n')[0]}\n`);
    const res2 = await cli('plan', '--reference', reference(mixed), '--out', path.join(dir, 'plan-mixed'), '--json');
    expect(res2.json.findings.map((f: { code: string }) => f.code)).toContain('suite-set-torn');

    const whole = copy('suite-whole');
    expect((await cli('plan', '--reference', reference(whole), '--out', path.join(dir, 'plan-whole'), '--quiet')).code).toBeLessThan(2);
  });

  it.skipIf(!existsSync(python))('lm_eval side: the suite loader raises on a torn suite and on a torn proxy suite in a fit folder', () => {
    const load = (d: string) =>
      spawnSync(python, ['-c', `import sys; sys.path.insert(0, sys.argv[1]); import utils; utils.load(data_files={"test": sys.argv[2]})`, d, path.relative(d, firstData(d))], { encoding: 'utf8' });
    const whole = copy('py-whole');
    expect(load(whole).status, load(whole).stderr).toBe(0);
    const torn = copy('py-torn');
    markWriting(torn);
    expect(load(torn).stderr).toContain('was being rewritten');
    const mixed = copy('py-mixed');
    writeFileSync(path.join(mixed, 'README.md'), 'changed\n');
    expect(load(mixed).stderr).toContain('differs from the suite manifest');

    // A proxy suite: its manifest names proxy_of and lists no files; the fit folder's set covers it.
    const fit = path.join(dir, 'py-fit');
    const proxy = path.join(fit, 'proxy-suite');
    cpSync(suite, proxy, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(proxy, 'aptpace-manifest.json'), 'utf8'));
    writeFileSync(path.join(proxy, 'aptpace-manifest.json'), JSON.stringify({ ...manifest, files: undefined, proxy_of: manifest.suite }));
    const sha = (f: string) => spawnSync('sha256sum', [f], { encoding: 'utf8' }).stdout.split(' ')[0];
    const files = Object.fromEntries(['utils.py', 'aptpace-manifest.json'].map((f) => [`proxy-suite/${f}`, { bytes: 0, sha256: sha(path.join(proxy, f)) }]));
    const setFile = path.join(fit, '.aptpace-set.fit.json');
    writeFileSync(setFile, JSON.stringify({ format: 'aptpace-output-set/1', set: 'fit', state: 'complete', files }));
    expect(load(proxy).status, load(proxy).stderr).toBe(0);
    // New proxy data beside an old pace model: the file no longer matches what fit recorded.
    writeFileSync(path.join(proxy, 'utils.py'), `${readFileSync(path.join(proxy, 'utils.py'), 'utf8')}\n`);
    expect(load(proxy).stderr).toContain('not the file aptpace fit wrote');
    writeFileSync(setFile, JSON.stringify({ format: 'aptpace-output-set/1', set: 'fit', state: 'writing', files: {} }));
    expect(load(proxy).stderr).toContain('aptpace fit stopped');
  });
});

describe('an emit that fails half way says so', () => {
  it('a full disk during an in-place update reports a half-written suite, not "nothing was written"', async () => {
    const { emitSuite } = await import('../../generator/core/emit/suite.js');
    const { readQuestions } = await import('../../generator/core/questions/read-questions.js');
    const { renderFinding } = await import('../../generator/core/kernel/render.js');
    const { questions } = await readQuestions(nodeVfs, [path.join(repoRoot, 'fixtures', 'questions', 'balanced-plan.jsonl')]);
    const out = path.join(dir, 'full-disk', 'suite');
    expect((await emitSuite(nodeVfs, questions, { suite: 'aptpace_full', outDir: out })).findings.filter((f) => f.severity === 'error')).toEqual([]);
    let writes = 0;
    const full: Vfs = {
      ...nodeVfs,
      async writeFileAtomic(target, data) {
        if (writes++ < 2) return nodeVfs.writeFileAtomic(target, data);
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC', path: target });
      },
    };
    const failed = await emitSuite(full, questions.slice(0, 10), { suite: 'aptpace_full', outDir: out });
    const unwritable = failed.findings.find((f) => f.code === 'emit-target-unwritable')!;
    expect(unwritable.args.partial).toBe(true);
    expect(renderFinding(unwritable)).not.toContain('nothing was written');
    expect(renderFinding(unwritable)).toContain('Rerun aptpace emit');
  });
});

describe('a score store read back', () => {
  it('every file matching its hash, but the set never marked complete, is refused', async () => {
    const { saveStore, tryLoadStore } = await import('../../generator/core/logs/store.js');
    const { syntheticPace } = await import('../../generator/core/pace/inputs/synthetic.js');
    const s = path.join(dir, 'store-unfinished');
    await saveStore(nodeVfs, s, syntheticPace({ models: 6, instances: 30, dims: 2, targets: 1, targetInstances: 10, seed: 'sets' }));
    expect((await tryLoadStore(nodeVfs, s)).store).toBeDefined();
    const manifest = path.join(s, outputSetFile('ingest'));
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace('"complete"', '"writing"'));
    const loaded = await tryLoadStore(nodeVfs, s);
    expect(loaded.store).toBeUndefined();
    expect(loaded.findings.map((f) => f.code)).toEqual(['output-set-torn']);
  });
});
