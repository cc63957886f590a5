/**
 * `emit` into a folder it does not own leaves every existing entry byte-, mode-, link- and
 * inode-identical: a private key (0600), an executable, a symbolic link, an empty folder, a FIFO
 * (which must not make emit hang) and the folder itself. Run as root in-process and as a
 * non-root user in a child process (a user is created if missing; CI runs as root).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { canRunAs, ensureUser, isRoot, runCliAs } from '../helpers/as-user.js';

const questions = fixtures('questions', 'balanced-plan.jsonl');
const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A home-like folder: key 0600 in a 0700 .ssh, an executable, a link, an empty folder, a FIFO. */
function userFolder(owner?: { uid: number; gid: number }): string {
  const base = mkdtempSync(path.join(tmpdir(), 'aptpace-foreign-'));
  made.push(base);
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  chmodSync(path.join(home, '.ssh', 'id_ed25519'), 0o600);
  chmodSync(path.join(home, '.ssh'), 0o700);
  writeFileSync(path.join(home, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(path.join(home, 'run.sh'), 0o755);
  symlinkSync('run.sh', path.join(home, 'link-to-run'));
  symlinkSync('/nonexistent/target', path.join(home, 'dangling'));
  mkdirSync(path.join(home, 'empty'));
  execFileSync('mkfifo', [path.join(home, 'pipe')]);
  if (owner) for (const p of [base, ...tree(base)]) lchownSync(p, owner.uid, owner.gid);
  return home;
}

function tree(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    out.push(p);
    if (e.isDirectory()) out.push(...tree(p));
  }
  return out;
}

/** Everything that must not change: inode, mode, owner, link target, content hash. */
function snapshot(home: string, only?: Set<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of [home, ...tree(home)]) {
    const rel = path.relative(home, p) || '.';
    if (only && !only.has(rel)) continue;
    const st = lstatSync(p);
    let what = '';
    if (st.isSymbolicLink()) what = `-> ${readlinkSync(p)}`;
    else if (st.isFile()) what = createHash('sha256').update(readFileSync(p)).digest('hex');
    out[rel] = `ino=${st.ino} mode=${st.mode.toString(8)} uid=${st.uid} ${what}`;
  }
  return out;
}

type Run = (...argv: string[]) => Promise<{ code: number; stderr: string }>;

async function checkFolderIsKept(home: string, run: Run) {
  const before = snapshot(home);
  const refused = await run('emit', questions, '--out', home, '--suite', 'aptpace_foreign');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('emit-target-not-empty');
  expect(snapshot(home)).toEqual(before);

  const forced = await run('emit', questions, '--out', home, '--suite', 'aptpace_foreign', '--force');
  expect(forced.stderr).not.toMatch(/crashed/);
  expect(forced.code).toBe(0);
  const after = snapshot(home, new Set(Object.keys(before)));
  expect(after).toEqual(before);
  expect(readdirSync(home)).toContain('aptpace-manifest.json');
  // No staging copy, temp file or moved original anywhere beside or inside the folder.
  expect(readdirSync(path.dirname(home))).toEqual(['home']);
  expect(tree(home).filter((p) => /aptpace-(staging|old)|\.tmp$/.test(p))).toEqual([]);

  // A second emit owns its files now and still leaves the user's entries alone.
  const again = await run('emit', questions, '--out', home, '--suite', 'aptpace_foreign');
  expect(again.code).toBe(0);
  expect(snapshot(home, new Set(Object.keys(before)))).toEqual(before);
}

describe('emit into a folder it does not own', () => {
  it.skipIf(!isRoot)('as root: every existing entry stays byte-, mode-, link- and inode-identical', async () => {
    await checkFolderIsKept(userFolder(), async (...argv) => cli(...argv));
  });

  it('as a non-root user: the same', async () => {
    if (!isRoot) {
      await checkFolderIsKept(userFolder(), async (...argv) => cli(...argv));
      return;
    }
    const user = ensureUser('aptpace-ci');
    if (!user || !canRunAs(user)) {
      console.warn(`skipped: ${user ? 'user aptpace-ci cannot read this clone (move it out of a private home folder)' : 'cannot create a non-root user (useradd failed)'}; run the suite as a non-root user to cover this`);
      return;
    }
    const home = userFolder(user);
    await checkFolderIsKept(home, async (...argv) => runCliAs(user, argv));
  });

  it('follows a symlinked suite folder instead of replacing it', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'aptpace-linked-'));
    made.push(base);
    const real = path.join(base, 'real-suite');
    expect((await cli('emit', questions, '--out', real, '--suite', 'aptpace_linked')).code).toBe(0);
    symlinkSync(real, path.join(base, 'suite-link'));
    const linkBefore = lstatSync(path.join(base, 'suite-link')).ino;
    const again = await cli('emit', questions, '--out', path.join(base, 'suite-link'), '--suite', 'aptpace_linked', '--force');
    expect(again.code).toBe(0);
    expect(lstatSync(path.join(base, 'suite-link')).isSymbolicLink()).toBe(true);
    expect(lstatSync(path.join(base, 'suite-link')).ino).toBe(linkBefore);
    expect(readdirSync(base).sort()).toEqual(['real-suite', 'suite-link']);
  });

  it('refuses to replace a symbolic link at a file name the suite writes', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'aptpace-filelink-'));
    made.push(base);
    const out = path.join(base, 'suite');
    expect((await cli('emit', questions, '--out', out, '--suite', 'aptpace_fl')).code).toBe(0);
    writeFileSync(path.join(base, 'elsewhere.md'), 'mine\n');
    rmSync(path.join(out, 'README.md'));
    symlinkSync(path.join(base, 'elsewhere.md'), path.join(out, 'README.md'));
    const r = await cli('emit', questions, '--out', out, '--suite', 'aptpace_fl', '--force');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('emit-target-symlink');
    expect(lstatSync(path.join(out, 'README.md')).isSymbolicLink()).toBe(true);
    expect(readFileSync(path.join(base, 'elsewhere.md'), 'utf8')).toBe('mine\n');
  });
});
