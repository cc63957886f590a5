import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './env.js';

export interface User {
  uid: number;
  gid: number;
}

export const isRoot = process.getuid?.() === 0;

/**
 * A non-root user for permission tests: created with useradd when the suite runs as root (as CI
 * does); undefined when that is impossible, and the caller skips with a message.
 */
export function ensureUser(name = 'aptpace-ci'): User | undefined {
  const lookup = () => spawnSync('id', ['-u', name], { encoding: 'utf8' });
  let id = lookup();
  if (id.status !== 0) {
    spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
    id = lookup();
    if (id.status !== 0) return undefined;
  }
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * Whether `user` can run the CLI from this clone at all (a clone under a 0700 home folder is not
 * readable by anyone else); callers skip with a message when not.
 */
export function canRunAs(user: User): boolean {
  const probe = spawnSync('setpriv', [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', process.execPath, '--import', 'tsx', '-e', `require('node:fs').accessSync(${JSON.stringify(path.join(repoRoot, 'generator', 'cli', 'main.ts'))})`], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return probe.status === 0;
}

/** Runs the CLI from source as `user` (setpriv drops root; no shell, no sudo). */
export function runCliAs(user: User, argv: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(
    'setpriv',
    [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', process.execPath, '--import', 'tsx', path.join(repoRoot, 'generator', 'cli', 'main.ts'), ...argv],
    { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, HOME: tmpdir() }, timeout: 120_000 },
  );
  return { code: r.status ?? 99, stdout: r.stdout ?? '', stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}
