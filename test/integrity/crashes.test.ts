/**
 * Ordinary file-system conditions are findings or usage errors (exit 1 or 2) naming the path,
 * never a crash (exit 3): symlink loops and dangling links in input folders, an output named
 * where a file or a folder already sits, a folder passed where a file is expected, deep nesting.
 */
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { canRunAs, ensureUser, isRoot, runCliAs } from '../helpers/as-user.js';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-integrity-crash-');
const loopy = path.join(dir, 'loopy');
const store = path.join(dir, 'store');
const fitDir = path.join(dir, 'fit');
const aFile = path.join(dir, 'a-file.json');
const aDir = path.join(dir, 'a-dir');
const questions = fixtures('questions', 'balanced-plan.jsonl');
const fast = ['--budget', '20', '--bootstrap', '5', '--nc-h', '2', '--nc-d', '2'];

beforeAll(async () => {
  mkdirSync(path.join(loopy, 'inner'), { recursive: true });
  copyFileSync(fixtures('trajectories', 'good', 'canonical.jsonl'), path.join(loopy, 'inner', 'canonical.jsonl'));
  symlinkSync('..', path.join(loopy, 'inner', 'back-to-parent'));
  symlinkSync('self-link', path.join(loopy, 'self-link'));
  symlinkSync(path.join(dir, 'nowhere'), path.join(loopy, 'dangling.jsonl'));
  writeFileSync(aFile, '{}\n');
  mkdirSync(aDir);
  const syn = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'integrity' });
  await saveStore(nodeVfs, store, syn);
  // The permission cases run as another user, who must be able to read the store.
  chmodSync(dir, 0o755);
  const fitted = await cli('fit', '--store', store, '--out', fitDir, ...fast);
  expect(fitted.code).toBe(0);
});

/** Exit 1 or 2, no stack trace, and the offending path named on stderr. */
function expectHandled(r: { code: number; stderr: string }, pathShown: string) {
  expect(r.stderr).not.toMatch(/crashed|\n\s+at /);
  expect([1, 2]).toContain(r.code);
  expect(r.stderr).toContain(pathShown);
}

describe('symlink loops and dangling links in input folders', () => {
  it('inspect and normalize report the loop and the dangling link and still read the real file', async () => {
    const r = await cli('inspect', loopy, '--json');
    expect(r.stderr).not.toMatch(/crashed/);
    expect(r.code).toBe(1);
    const codes = r.json.findings.map((f: { code: string }) => f.code);
    expect(codes).toContain('fs-symlink-loop');
    expect(codes).toContain('fs-dangling-symlink');
    expect(r.json.data.files.length).toBe(1);
    const n = await cli('normalize', loopy, '--out', path.join(dir, 'norm.jsonl'));
    expect(n.code).toBe(1);
    expect(n.stderr).toContain('self-link');
  });

  it('ingest reports the loop in a logs and a tables folder', async () => {
    const r = await cli('ingest', loopy, '--out', path.join(dir, 'ingest-loop'), '--json');
    expect(r.stderr).not.toMatch(/crashed/);
    expect([1, 2]).toContain(r.code);
    const t = await cli('ingest', '--tables', loopy, '--out', path.join(dir, 'ingest-loop2'), '--json');
    expect(t.stderr).not.toMatch(/crashed/);
    expect([1, 2]).toContain(t.code);
  });

  it('build and emit report the loop', async () => {
    const b = await cli('build', loopy, '--out', path.join(dir, 'q.jsonl'), '--no-audit');
    expect(b.stderr).not.toMatch(/crashed/);
    expect([0, 1]).toContain(b.code);
    const e = await cli('emit', loopy, '--out', path.join(dir, 'suite-loop'));
    expect(e.stderr).not.toMatch(/crashed/);
    expect([1, 2]).toContain(e.code);
  });
});

describe('an output named where something else already sits', () => {
  it.each([
    ['review', () => ['review', questions, '--out', aFile, '--force']],
    ['ingest', () => ['ingest', '--tables', fixtures('example', 'sources'), '--out', aFile, '--force']],
    ['fit', () => ['fit', '--store', store, '--out', aFile, ...fast, '--force']],
    ['evaluate', () => ['evaluate', '--store', store, '--out', aFile, ...fast, '--no-nested', '--budgets', '', '--baselines', '', '--max-folds', '1', '--force']],
    ['check', () => ['check', '--model-file', path.join(fitDir, 'model.json'), '--model', 'model-0001', '--store', store, '--out', aFile, '--force']],
    ['normalize', () => ['normalize', fixtures('trajectories', 'good', 'canonical.jsonl'), '--out', `${aDir}.jsonl`, '--force']],
    ['predict', () => ['predict', '--model-file', path.join(fitDir, 'model.json'), '--model', 'model-0001', '--store', store, '--out', aDir, '--force']],
    ['build', () => ['build', fixtures('trajectories', 'good', 'canonical.jsonl'), '--out', aDir, '--force', '--no-audit']],
  ])('%s', async (_name, argv) => {
    if (_name === 'normalize') mkdirSync(`${aDir}.jsonl`, { recursive: true });
    const r = await cli(...argv());
    expectHandled(r, _name === 'normalize' ? `${aDir}.jsonl` : _name === 'predict' || _name === 'build' ? aDir : aFile);
  });
});

describe('a folder passed where a file is expected', () => {
  it.each([
    ['check --history', () => ['check', '--model-file', path.join(fitDir, 'model.json'), '--model', 'model-0001', '--store', store, '--out', path.join(dir, 'chk-h'), '--history', aDir]],
    ['fit --config', () => ['fit', '--store', store, '--out', path.join(dir, 'fit-c'), ...fast, '--config', aDir]],
    ['evaluate --grid', () => ['evaluate', '--store', store, '--grid', aDir, ...fast, '--budgets', '', '--baselines', '', '--max-folds', '1']],
    ['ingest --mapping', () => ['ingest', '--tables', fixtures('pace'), '--out', path.join(dir, 'ing-m'), '--mapping', aDir]],
    ['check --model-file', () => ['check', '--model-file', aDir, '--model', 'model-0001', '--store', store, '--out', path.join(dir, 'chk-m')]],
  ])('%s', async (_name, argv) => {
    const r = await cli(...argv());
    expectHandled(r, aDir);
  });
});

describe('bounded inputs', () => {
  it('fit --bootstrap 1e12 is a usage error', async () => {
    const r = await cli('fit', '--store', store, '--out', path.join(dir, 'fit-b'), '--budget', '20', '--bootstrap', '1e12');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--bootstrap');
    expect(existsSync(path.join(dir, 'fit-b'))).toBe(false);
  });

  it('5,000+ levels of nesting in a step argument (normalize) and in --mapping are findings with the file', async () => {
    const deep = `${'['.repeat(6000)}1${']'.repeat(6000)}`;
    const traj = path.join(dir, 'deep.jsonl');
    const line = JSON.stringify({ schema_version: 'traj/1', id: 'deep', source: { format: 'canonical' }, task: { goal: 'g' }, steps: [{ action: { type: 'tool', name: 't', args: { x: 0 } } }] }).replace('{"x":0}', `{"x":${deep}}`);
    writeFileSync(traj, `${line}\n`);
    const n = await cli('normalize', traj, '--out', path.join(dir, 'deep-out.jsonl'));
    expectHandled(n, traj);
    const mapping = path.join(dir, 'deep-mapping.json');
    writeFileSync(mapping, `{"a":${deep}}`);
    const m = await cli('ingest', '--tables', fixtures('pace'), '--out', path.join(dir, 'deep-ing'), '--mapping', mapping);
    expectHandled(m, mapping);
  });
});

describe('permissions (as a non-root user)', () => {
  it('an unreadable input and an unwritable output folder are findings naming the path', async () => {
    const user = isRoot ? ensureUser() : undefined;
    if (isRoot && (!user || !canRunAs(user))) {
      console.warn(`skipped: ${user ? 'user aptpace-ci cannot read this clone' : 'cannot create a non-root user (useradd failed)'}; run the suite as a non-root user to cover this`);
      return;
    }
    const base = mkdtempSync(path.join(tmpdir(), 'aptpace-perm-'));
    try {
      const secret = path.join(base, 'secret.jsonl');
      copyFileSync(fixtures('trajectories', 'good', 'canonical.jsonl'), secret);
      const locked = path.join(base, 'locked');
      mkdirSync(locked);
      if (user) for (const p of [base, secret, locked]) chownSync(p, user.uid, user.gid);
      chmodSync(secret, 0o000);
      chmodSync(locked, 0o555);
      const run = async (...argv: string[]) => (user ? runCliAs(user, argv) : cli(...argv));
      const cases: Array<[string[], string]> = [
        [['inspect', secret], secret],
        [['normalize', secret, '--out', path.join(base, 'n.jsonl')], secret],
        [['normalize', fixtures('trajectories', 'good', 'canonical.jsonl'), '--out', path.join(locked, 'n.jsonl')], locked],
        [['emit', questions, '--out', path.join(locked, 'suite')], locked],
        [['fit', '--store', store, '--out', path.join(locked, 'fit'), ...fast], locked],
        [['review', questions, '--out', path.join(locked, 'review')], locked],
      ];
      for (const [argv, shown] of cases) {
        const r = await run(...argv);
        expect(r.stderr, argv.join(' ')).not.toMatch(/crashed|\n\s+at /);
        expect([1, 2], `${argv.join(' ')}: ${r.stderr}`).toContain(r.code);
        expect(r.stderr, argv.join(' ')).toContain(shown);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
