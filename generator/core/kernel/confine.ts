import * as path from 'node:path';
import type { Vfs } from './vfs.js';

/**
 * Why a write was refused before anything was written: the real target leaves the output
 * folder, it exists and may not be replaced, it is one of the command's own inputs, or another
 * writer holds the folder.
 */
export type OutputErrorCode = 'output-outside-root' | 'output-exists' | 'output-is-input' | 'output-locked';

export class OutputError extends Error {
  constructor(
    readonly code: OutputErrorCode,
    readonly target: string,
    readonly detail?: string,
  ) {
    super(
      code === 'output-exists'
        ? `${target} exists; pass --force to overwrite it`
        : code === 'output-is-input'
          ? `${target} is also an input of this command`
          : code === 'output-locked'
            ? `${target} is being written by another aptpace process`
            : `${target} is outside the output folder`,
    );
  }
}

/** Links followed while resolving one path; more means a loop. */
const MAX_LINKS = 40;

/**
 * The real path of `p`: every existing ancestor's links resolved, the parts that do not exist
 * yet appended as written. `p` itself is resolved too when it exists (or is a link).
 */
export async function realPathOf(vfs: Vfs, p: string): Promise<string> {
  const absolute = path.resolve(p);
  const missing: string[] = [];
  let cur = absolute;
  for (;;) {
    const st = await vfs.lstat(cur).catch(() => undefined);
    if (st) {
      const real = await vfs.realpath(cur).catch(() => undefined);
      // A dangling link: where it points is where a write would land.
      const base = real ?? (st.isSymbolicLink ? await danglingTarget(vfs, cur) : cur);
      return missing.length ? path.join(base, ...missing.reverse()) : base;
    }
    const parent = path.dirname(cur);
    if (parent === cur) return absolute;
    missing.push(path.basename(cur));
    cur = parent;
  }
}

async function danglingTarget(vfs: Vfs, link: string): Promise<string> {
  let cur = link;
  for (let i = 0; i < MAX_LINKS; i++) {
    const to = await vfs.readlink?.(cur).catch(() => undefined);
    if (to === undefined) return cur;
    const next = path.resolve(path.dirname(cur), to);
    const st = await vfs.lstat(next).catch(() => undefined);
    if (!st?.isSymbolicLink) return realPathOf(vfs, next);
    cur = next;
  }
  return cur;
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel !== '' && !rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel);
}

/**
 * The one containment check every write goes through: `relative` must name a path below
 * `root`, and so must the place the write really lands once every symbolic link on the way
 * (a linked subfolder, a link at the file's own name, a link to a link) is followed. Returns
 * that real path, which is what gets written, so a link inside the folder to another file
 * inside the folder is updated rather than replaced. Throws OutputError('output-outside-root').
 */
export async function confinedTarget(vfs: Vfs, root: string, relative: string): Promise<string> {
  const absoluteRoot = path.resolve(root);
  const target = path.resolve(absoluteRoot, relative);
  if (!inside(absoluteRoot, target)) throw new OutputError('output-outside-root', relative);
  const realRoot = await realPathOf(vfs, absoluteRoot);
  const real = await realPathOf(vfs, target);
  if (!inside(realRoot, real)) throw new OutputError('output-outside-root', target, real);
  return real;
}

/**
 * A file the user named (`--out file`, `--findings-file`, `--history`, a review status file):
 * a link at that name is the user's own and is followed, so the file it points to is the one
 * updated and the link stays a link. Returns the real path to write.
 */
export async function namedOutputTarget(vfs: Vfs, file: string): Promise<string> {
  return realPathOf(vfs, file);
}

/**
 * Refuses an output that is one of the command's inputs (the same real path, however it is
 * spelled or linked): reading and then replacing it would lose it. Throws
 * OutputError('output-is-input') before anything is read or written. (A previous output inside
 * an input folder is the readers' business: they leave it out of the read.)
 */
export async function refuseInputAsOutput(vfs: Vfs, output: string, inputs: readonly string[]): Promise<void> {
  const real = await realPathOf(vfs, output);
  for (const input of inputs) {
    if (input && (await realPathOf(vfs, input)) === real) throw new OutputError('output-is-input', output);
  }
}
