import * as path from 'node:path';
import type { Finding } from './findings.js';
import { findingFactory } from './findings.js';
import { fsFindings } from './fs-findings.js';
import type { Vfs } from './vfs.js';

const make = findingFactory(fsFindings);

export interface WalkOptions {
  /** Keep a file (full path) in the result; default every regular file. */
  filter?: (file: string) => boolean;
  /** Enter hidden entries (`.git`, atomic-write temporaries); default false. */
  hidden?: boolean;
}

export interface WalkResult {
  /** Regular files, depth-first in sorted order (deterministic across machines). */
  files: string[];
  /** Loops, dangling links, unreadable folders and non-regular files, each with its path. */
  findings: Finding[];
}

/**
 * The one folder walker. Follows symbolic links the user put in an input tree (a linked
 * dataset is a normal layout), but remembers the real path of every folder on the current
 * branch, so a link back to an ancestor is reported once as `fs-symlink-loop` instead of
 * recursing until the stack or the path length runs out. A link to nothing is reported as
 * `fs-dangling-symlink`; a FIFO or socket is skipped without being opened (opening one blocks).
 */
/** Entries of one folder stat'ed at once. */
const STAT_BATCH = 64;

export async function walkTree(vfs: Vfs, root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const files: string[] = [];
  const findings: Finding[] = [];
  const onBranch = new Set<string>();
  const filter = options.filter ?? (() => true);

  async function visit(dir: string): Promise<void> {
    let real: string;
    let names: string[];
    // Entry types the folder itself records: a regular file or folder needs no stat of its own.
    let types: Map<string, 'file' | 'directory' | 'other'> | undefined;
    try {
      real = await vfs.realpath(dir);
      if (vfs.listTyped) {
        const entries = await vfs.listTyped(dir);
        names = entries.map((e) => e.name);
        types = new Map(entries.map((e) => [e.name, e.type]));
      } else names = await vfs.list(dir);
    } catch (err) {
      findings.push(problemFor(dir, err));
      return;
    }
    if (onBranch.has(real)) {
      findings.push(make('fs-symlink-loop', { file: dir }, { path: dir, ancestor: real }));
      return;
    }
    onBranch.add(real);
    const visible = options.hidden ? names : names.filter((name) => !name.startsWith('.'));
    const known = (name: string) => {
      const t = types?.get(name);
      return t === 'file' || t === 'directory' ? t : undefined;
    };
    // A folder's entries are stat'ed a batch at a time (one round trip per batch, not per file:
    // a folder of harness output holds dozens of files) and handled in order.
    let stats: (Promise<Awaited<ReturnType<Vfs['stat']>> | { error: unknown }> | undefined)[] = [];
    for (let i = 0; i < visible.length; i++) {
      if (i % STAT_BATCH === 0) {
        stats = visible.slice(i, i + STAT_BATCH).map((name) => (known(name) ? undefined : vfs.stat(path.join(dir, name)).catch((error: unknown) => ({ error }))));
      }
      const full = path.join(dir, visible[i]!);
      const type = known(visible[i]!);
      const st = type ? { isFile: type === 'file', isDirectory: type === 'directory' } : await stats[i % STAT_BATCH]!;
      if (st && 'error' in st) {
        findings.push(problemFor(full, st.error));
        continue;
      }
      if (!st) {
        // list() saw the name, stat() cannot follow it: a link to a missing target.
        const link = await vfs.lstat(full).catch(() => undefined);
        if (link?.isSymbolicLink) findings.push(make('fs-dangling-symlink', { file: full }, { path: full }));
        continue;
      }
      if (st.isDirectory) await visit(full);
      else if (st.isFile) {
        if (filter(full)) files.push(full);
      } else if (filter(full)) findings.push(make('fs-not-regular', { file: full }, { path: full }));
    }
    onBranch.delete(real);
  }

  await visit(root);
  return { files, findings };
}

/** The finding for an OS error on `file`; undefined when the error is not a file-system condition. */
export function fsProblem(file: string, err: unknown, writing = false): Finding | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const reason = describeFsError(err);
  switch (code) {
    case 'ELOOP':
      return make('fs-symlink-loop', { file }, { path: file });
    case 'ENOENT':
      return make('fs-missing', { file }, { path: file });
    case 'EISDIR':
      return make('fs-not-a-file', { file }, { path: file });
    case 'ENOTDIR':
      return make('fs-not-a-directory', { file }, { path: file });
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EEXIST':
    case 'ENOTEMPTY':
    case 'EXDEV':
    case 'EBUSY':
    case 'ETXTBSY':
    case 'EMFILE':
    case 'ENFILE':
    case 'ENAMETOOLONG':
    case 'EIO':
    case 'EINVAL':
      return make(writing ? 'fs-unwritable' : 'fs-unreadable', { file }, { path: file, reason });
    default:
      return undefined;
  }
}

function problemFor(file: string, err: unknown): Finding {
  return fsProblem(file, err) ?? make('fs-unreadable', { file }, { path: file, reason: describeFsError(err) });
}

/** `EACCES (open)` rather than node's message, which repeats the path. */
/** An error the operating system raised about a path (it carries an errno code), as opposed to a bug. */
export function isFsError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

export function describeFsError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e?.code) return `${e.code}${e.syscall ? ` (${e.syscall})` : ''}`;
  return String((err as Error)?.message ?? err);
}
