/**
 * One containment check for every write: a subfolder of an output that is a link to somewhere
 * else is refused (nothing lands behind the link), a link at a file the user named is followed,
 * and no output ever replaces one of the command's inputs.
 */
import { existsSync, mkdirSync, rmSync, readdirSync, readFileSync, symlinkSync, writeFileSync, lstatSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures, repoRoot } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { OutputFolder, writeOutputFile } from '../../generator/core/kernel/output.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-contain-');
const fast = ['--budget', '20', '--bootstrap', '5', '--nc-h', '2', '--nc-d', '2'];
const syn = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'contain' });
const store = path.join(dir, 'store');
const fit = path.join(dir, 'fit');

/** A fresh output folder `name` whose `sub` is a link to a fresh, empty victim folder. */
function linkedOut(name: string, sub: string): { out: string; victim: string } {
  const out = path.join(dir, name);
  const victim = path.join(dir, `${name}-victim`);
  mkdirSync(path.dirname(path.join(out, sub)), { recursive: true });
  mkdirSync(victim, { recursive: true });
  symlinkSync(victim, path.join(out, sub));
  return { out, victim };
}

beforeAll(async () => {
  await saveStore(nodeVfs, store, syn);
  // Fitted on all but the last two models: those are the checkpoints `report` plots.
  const S = syn.matrix.instances.length;
  const train = { ...syn.matrix, models: syn.matrix.models.slice(0, 8), values: syn.matrix.values.slice(0, 8 * S), observed: syn.matrix.observed.slice(0, 8 * S) };
  await saveStore(nodeVfs, path.join(dir, 'train'), { matrix: train, targets: syn.targets });
  const res = await cli('fit', '--store', path.join(dir, 'train'), '--out', fit, ...fast, '--quiet');
  expect(res.code, res.stderr).toBe(0);
}, 60_000);

describe('a linked subfolder of an output is refused, nothing lands behind it', () => {
  it('check (charts/)', async () => {
    const { out, victim } = linkedOut('chk', 'charts');
    const res = await cli('check', '--model-file', path.join(fit, 'model.json'), '--model', syn.matrix.models[9]!.name, '--store', store, '--out', out, '--allow-unproven');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('outside the output folder');
    expect(readdirSync(victim)).toEqual([]);
  });

  it('report (charts/)', async () => {
    const { out, victim } = linkedOut('rep', 'charts');
    const res = await cli('report', '--store', store, '--model-file', path.join(fit, 'model.json'), '--out', out);
    expect(res.code, res.stderr).toBe(2);
    expect(readdirSync(victim)).toEqual([]);
  });

  it('plan (shards/)', async () => {
    const { out, victim } = linkedOut('plans', 'shards');
    const reference = path.join(dir, 'reference.yaml');
    const refs = ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ref-${n}, model: dummy, model_args: pretrained=ref-${n}, scores: {swe-bench: 0.${i + 2}}}`);
    writeFileSync(reference, `format: aptpace-reference/1\nsuite: {path: ${path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures')}}\nreferences:\n${refs.join('\n')}\ncheckpoints:\n  - {name: step-1, model: dummy, model_args: pretrained=s1, step: 1}\n`);
    const res = await cli('plan', '--reference', reference, '--shards', '2', '--out', out, '--quiet');
    expect(res.code, res.stderr).toBe(2);
    expect(readdirSync(victim)).toEqual([]);
    // The same plan into a plain folder is written.
    expect((await cli('plan', '--reference', reference, '--shards', '2', '--out', path.join(dir, 'plans-ok'), '--quiet')).code).toBeLessThan(2);
    expect(readdirSync(path.join(dir, 'plans-ok', 'shards')).length).toBeGreaterThan(0);
  });

  it('emit --force (data/ of an existing suite)', async () => {
    const out = path.join(dir, 'suite');
    const questions = fixtures('questions', 'balanced-plan.jsonl');
    expect((await cli('emit', questions, '--out', out, '--suite', 'aptpace_contain', '--quiet')).code).toBeLessThan(2);
    expect(readdirSync(path.join(out, 'data')).length).toBeGreaterThan(0);
    rmSync(path.join(out, 'data'), { recursive: true });
    const victim = path.join(dir, 'suite-victim');
    mkdirSync(victim);
    symlinkSync(victim, path.join(out, 'data'));
    const res = await cli('emit', questions, '--out', out, '--suite', 'aptpace_contain', '--force', '--json');
    expect(res.code).toBe(1);
    expect(res.json.findings.map((f: { code: string }) => f.code)).toContain('emit-target-unwritable');
    expect(readdirSync(victim)).toEqual([]);
  });

  it('fit --suite (proxy-suite/ and proxy-suite/data/) through the set writer fit uses', async () => {
    for (const sub of ['proxy-suite', path.join('proxy-suite', 'data')]) {
      const { out, victim } = linkedOut(`fit-${sub.replace(/\W/g, '-')}`, sub);
      const folder = new OutputFolder(nodeVfs, out, { force: true, set: 'fit' });
      await expect(folder.writeSet({ 'model.json': '{}\n', 'proxy-suite/data/proxy.jsonl': '{}\n', 'proxy-suite/pace_model.json': '{}\n' })).rejects.toMatchObject({ code: 'output-outside-root' });
      expect(readdirSync(victim)).toEqual([]);
      expect(existsSync(path.join(out, 'model.json'))).toBe(false);
    }
  });

  it('a link to a link, and a link at a file name inside the folder, are followed to where they lead', async () => {
    const out = path.join(dir, 'chain');
    const victim = path.join(dir, 'chain-victim');
    mkdirSync(out);
    mkdirSync(victim);
    symlinkSync(path.join(out, 'hop'), path.join(out, 'charts'));
    symlinkSync(victim, path.join(out, 'hop'));
    symlinkSync(path.join(victim, 'x.svg'), path.join(out, 'x.svg'));
    const folder = new OutputFolder(nodeVfs, out, { force: true });
    await expect(folder.write('charts/a.svg', 'a')).rejects.toMatchObject({ code: 'output-outside-root' });
    await expect(folder.write('x.svg', 'a')).rejects.toMatchObject({ code: 'output-outside-root' });
    expect(readdirSync(victim)).toEqual([]);
    // A link that stays inside the folder is fine and updates the file it names.
    writeFileSync(path.join(out, 'real.txt'), 'old');
    symlinkSync('real.txt', path.join(out, 'alias.txt'));
    await folder.write('alias.txt', 'new');
    expect(readFileSync(path.join(out, 'real.txt'), 'utf8')).toBe('new');
    expect(lstatSync(path.join(out, 'alias.txt')).isSymbolicLink()).toBe(true);
  });
});

describe('named files: links followed, inputs never replaced', () => {
  it('a symlinked --history is updated where it points, and stays a link', async () => {
    const cache = path.join(dir, 'cache');
    mkdirSync(cache);
    const real = path.join(cache, 'history.jsonl');
    writeFileSync(real, '');
    const link = path.join(dir, 'history-link.jsonl');
    symlinkSync(real, link);
    const res = await cli('check', '--model-file', path.join(fit, 'model.json'), '--model', syn.matrix.models[9]!.name, '--store', store, '--out', path.join(dir, 'chk-hist'), '--history', link, '--allow-unproven');
    expect(res.code, res.stderr).toBeLessThan(2);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, 'utf8')).toContain(syn.matrix.models[9]!.name);
  });

  it('writeOutputFile follows a link at the name and refuses an existing file without force', async () => {
    const real = path.join(dir, 'status-real.tsv');
    writeFileSync(real, 'old\n');
    const link = path.join(dir, 'status-link.tsv');
    symlinkSync(real, link);
    await expect(writeOutputFile(nodeVfs, link, 'x')).rejects.toMatchObject({ code: 'output-exists' });
    await writeOutputFile(nodeVfs, link, 'new\n', true);
    expect(readFileSync(real, 'utf8')).toBe('new\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('--findings-file never overwrites an existing file without --force, nor an input even with --force', async () => {
    const q = path.join(dir, 'q.jsonl');
    writeFileSync(q, readFileSync(fixtures('questions', 'balanced-plan.jsonl')));
    const original = readFileSync(q, 'utf8');
    const onInput = await cli('audit', q, '--findings-file', q);
    expect(onInput.code).toBe(2);
    expect(onInput.stderr).toContain('also an input');
    expect(readFileSync(q, 'utf8')).toBe(original);
    // Through a link to the input, too.
    const alias = path.join(dir, 'q-alias.jsonl');
    symlinkSync(q, alias);
    expect((await cli('audit', q, '--findings-file', alias)).code).toBe(2);
    expect(readFileSync(q, 'utf8')).toBe(original);

    const notes = path.join(dir, 'notes.txt');
    writeFileSync(notes, 'my notes\n');
    const exists = await cli('audit', q, '--findings-file', notes);
    expect(exists.code).toBe(2);
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    const notesOut = path.join(dir, 'normalized.jsonl');
    const forced = await cli('normalize', fixtures('trajectories', 'good', 'chat-messages.jsonl'), '--out', notesOut, '--findings-file', notes, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(notes, 'utf8')).not.toBe('my notes\n');

    // A findings file an earlier run wrote is ours to replace on a rerun.
    const findings = path.join(dir, 'findings.jsonl');
    expect((await cli('audit', q, '--findings-file', findings)).code).toBeLessThan(2);
    expect((await cli('audit', q, '--findings-file', findings)).code).toBeLessThan(2);
    // Never onto an input named by an option (normalize's own --out is written by the command).
    expect((await cli('normalize', fixtures('trajectories', 'good', 'chat-messages.jsonl'), '--out', notesOut, '--findings-file', notesOut, '--force')).code).toBe(2);
  });

  it('normalize X --out X --force is a usage error and X keeps its content', async () => {
    const x = path.join(dir, 'x.jsonl');
    writeFileSync(x, readFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl')));
    const before = readFileSync(x, 'utf8');
    const res = await cli('normalize', x, '--out', x, '--force');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('also an input');
    expect(readFileSync(x, 'utf8')).toBe(before);
    // However it is spelled: through a link, or with ./ and ../ in the path.
    const link = path.join(dir, 'x-link.jsonl');
    symlinkSync(x, link);
    expect((await cli('normalize', link, '--out', path.join(dir, '.', 'sub', '..', 'x.jsonl'), '--force')).code).toBe(2);
    expect(readFileSync(x, 'utf8')).toBe(before);
    // build refuses the same.
    expect((await cli('build', x, '--out', x, '--force')).code).toBe(2);
    expect(readFileSync(x, 'utf8')).toBe(before);
  });
});
