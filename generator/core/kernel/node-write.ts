/**
 * Atomic writes on the real file system, and confined ones: with `within` (the real output
 * root), a write re-checks where it really lands at every step instead of trusting the
 * containment check made before it. Node has no openat() or renameat(), so each step goes by
 * path again; what this closes and the window it leaves are in README.md ("No command writes
 * outside its output folder") and docs/architecture.md.
 */
import { constants, createWriteStream, type WriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { OutputError } from './confine.js';
import type { AtomicWriter, AtomicWriterOptions, WriteOptions, WriteStep } from './vfs.js';

/** Dot-prefixed so directory walks skip it; random so concurrent writers never share one. */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** Filesystems without hard links (some network and FAT mounts) answer link() with these. */
export const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/** Room for a few chunks in flight, so the caller builds the next one while the disk writes. */
const WRITE_BUFFER_BYTES = 4 << 20;

/**
 * A new temp file: created exclusively (never through a file or link someone put at its name),
 * and never through a link at the name even where O_EXCL alone would not say so.
 */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Node leaves `path` off some errors (readFile of a folder: EISDIR with no path). Every error
 * leaving the Vfs names the path it was about, so the CLI can turn it into a finding.
 */
export function withPath(err: unknown, p: string, writing = false): unknown {
  if (err && typeof err === 'object' && typeof (err as NodeJS.ErrnoException).code === 'string') {
    const e = err as NodeJS.ErrnoException & { writing?: boolean };
    e.path = p;
    if (writing) e.writing = true;
  }
  return err;
}

export async function exists(file: string): Promise<boolean> {
  try {
    await fsp.lstat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function insideOrAt(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Where `p` leads now: its nearest existing ancestor's real path, with the missing parts appended. */
async function leadsTo(p: string): Promise<string> {
  const missing: string[] = [];
  for (let cur = p; ; cur = path.dirname(cur)) {
    try {
      return path.join(await fsp.realpath(cur), ...missing);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(cur) === cur) throw err;
      missing.unshift(path.basename(cur));
    }
  }
}

/**
 * Where `dir` really is now; OutputError('output-outside-root') unless at or below `within`.
 * A folder that vanished because a link to elsewhere took its parent's place is outside too.
 */
async function realDirWithin(dir: string, within: string, target: string): Promise<string> {
  let real: string;
  try {
    real = await fsp.realpath(dir);
  } catch (err) {
    const leads = await leadsTo(dir).catch(() => undefined);
    if (leads !== undefined && !insideOrAt(within, leads)) throw new OutputError('output-outside-root', target, leads);
    throw err;
  }
  if (!insideOrAt(within, real)) throw new OutputError('output-outside-root', target, real);
  return real;
}

/** An error of a step that failed because its folder vanished: output-outside-root when the path now leads outside. */
async function outsideOr(err: unknown, dir: string, within: string | undefined, target: string): Promise<unknown> {
  if (!within || err instanceof OutputError) return err;
  const leads = await leadsTo(dir).catch(() => undefined);
  return leads !== undefined && !insideOrAt(within, leads) ? new OutputError('output-outside-root', target, leads) : err;
}

/**
 * mkdir -p for a confined write: `within` itself is made as named (it is the user's folder),
 * each folder below it one at a time, each checked to be really below `within` once made. A
 * folder made outside because a link was swapped in meanwhile is removed again (it is empty:
 * we just made it). Returns the real folder.
 */
async function mkdirWithin(dir: string, within: string, target: string): Promise<string> {
  await fsp.mkdir(within, { recursive: true });
  const rel = path.relative(within, dir);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new OutputError('output-outside-root', target, dir);
  let real = await realDirWithin(within, within, target);
  for (const name of rel.split(path.sep).filter(Boolean)) {
    const next = path.join(real, name);
    let made = false;
    try {
      await fsp.mkdir(next);
      made = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      real = await realDirWithin(next, within, target);
    } catch (err) {
      if (made) await fsp.rmdir(next).catch(() => undefined);
      throw err;
    }
  }
  return real;
}

interface Identity {
  dev: number;
  ino: number;
}

/** Whether `p` (not followed) is the file we created. */
async function isOurs(p: string, ours: Identity): Promise<boolean> {
  const st = await fsp.lstat(p).catch(() => undefined);
  return st !== undefined && st.dev === ours.dev && st.ino === ours.ino;
}

/**
 * The confined write's check between steps: `p` must still lead to our own file, in a folder
 * that is really below `within`. Otherwise our file is removed if it can still be reached by
 * that path (it then lies wherever the swapped-in link leads) and the write is refused.
 */
async function verifyOurs(p: string, ours: Identity, within: string, target: string): Promise<void> {
  let problem: string | undefined;
  try {
    await realDirWithin(path.dirname(p), within, target);
    if (!(await isOurs(p, ours))) problem = `${p} no longer leads to the file being written`;
  } catch (err) {
    if (!(err instanceof OutputError)) throw err;
    problem = err.detail ?? target;
  }
  if (problem === undefined) return;
  if (await isOurs(p, ours)) await fsp.unlink(p).catch(() => undefined);
  throw new OutputError('output-outside-root', target, problem);
}

/** A confined write's steps, with the test seam between them. */
interface Steps {
  dir: string;
  within?: string;
  step: (s: WriteStep) => Promise<void>;
}

async function prepare(target: string, options: WriteOptions): Promise<Steps> {
  const step = async (s: WriteStep) => {
    await options.onStep?.(s);
  };
  let dir = path.dirname(target);
  try {
    if (options.within) dir = await mkdirWithin(dir, options.within, target);
    else await fsp.mkdir(dir, { recursive: true });
  } catch (err) {
    throw err instanceof OutputError ? err : withPath(err, dir, true);
  }
  await step('folders-made');
  return { dir, within: options.within, step };
}

async function openTemp(s: Steps, target: string): Promise<{ tmp: string; handle: fsp.FileHandle; ours: Identity }> {
  const tmp = tempPathFor(path.join(s.dir, path.basename(target)));
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(tmp, TEMP_FLAGS, 0o666);
  } catch (err) {
    const e = await outsideOr(err, s.dir, s.within, target);
    throw e instanceof OutputError ? e : withPath(e, target, true);
  }
  const st = await handle.stat();
  const ours = { dev: st.dev, ino: st.ino };
  try {
    // The folder may have been swapped between the check and the open: the temp is then outside.
    if (s.within) await verifyOurs(tmp, ours, s.within, target);
    await s.step('temp-opened');
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
  return { tmp, handle, ours };
}

/**
 * Moves the finished temp file to its name: checked right before (so a folder swapped or moved
 * out meanwhile is refused with nothing replaced) and right after (a file that landed outside
 * anyway is removed). Without `force`, link() refuses atomically if the target appeared.
 */
async function publish(s: Steps, tmp: string, ours: Identity, target: string, force: boolean): Promise<void> {
  const final = path.join(s.dir, path.basename(target));
  await s.step('temp-written');
  if (s.within) await verifyOurs(tmp, ours, s.within, target);
  try {
    await place(tmp, final, force);
  } catch (err) {
    const e = await outsideOr(err, s.dir, s.within, target);
    throw e instanceof OutputError ? e : withPath(e, target, true);
  }
  await s.step('published');
  if (s.within) await verifyOurs(final, ours, s.within, target);
}

async function place(tmp: string, final: string, force: boolean): Promise<void> {
  if (force) return fsp.rename(tmp, final);
  try {
    await fsp.link(tmp, final);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw new OutputError('output-exists', final);
    if (!NO_HARD_LINKS.has(code)) throw err;
    // Without hard links the check and the rename are two steps; the window is small.
    if (await exists(final)) throw new OutputError('output-exists', final);
    return fsp.rename(tmp, final);
  }
  await fsp.rm(tmp, { force: true });
}

/** Write to a sibling temp file, then rename: readers never see half a file. */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  const s = await prepare(target, options);
  const { tmp, handle, ours } = await openTemp(s, target);
  try {
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    await publish(s, tmp, ours, target, true);
  } catch (err) {
    // Only our own temp file, found by identity: never whatever a swapped link now leads to.
    if (await isOurs(tmp, ours)) await fsp.unlink(tmp).catch(() => undefined);
    // The user named `target`; the temp name would only confuse.
    throw err instanceof OutputError ? err : withPath(err, target, true);
  }
}

/**
 * Streams into a sibling temp file and renames it over the target on commit. Without `force`,
 * commit publishes with link(): the kernel refuses atomically if the target appeared meanwhile,
 * so a user's file is never replaced even in a race.
 */
export async function openAtomicWriter(target: string, options: AtomicWriterOptions = {}): Promise<AtomicWriter> {
  const force = options.force ?? false;
  if (!force && (await exists(target))) throw new OutputError('output-exists', target);
  const s = await prepare(target, options);
  const { tmp, handle, ours } = await openTemp(s, target);
  const stream: WriteStream = handle.createWriteStream({ highWaterMark: WRITE_BUFFER_BYTES }) as unknown as WriteStream;
  let failure: Error | undefined;
  stream.on('error', (err) => {
    failure ??= err;
  });
  let state: 'open' | 'committing' | 'committed' | 'aborted' = 'open';

  const closed = () =>
    new Promise<void>((resolve) => {
      if (stream.closed) resolve();
      else stream.once('close', () => resolve());
    });

  async function abort(): Promise<void> {
    if (state === 'committed' || state === 'aborted') return;
    state = 'aborted';
    stream.destroy();
    await closed();
    if (await isOurs(tmp, ours)) await fsp.rm(tmp, { force: true });
  }

  async function failWith(err: unknown): Promise<never> {
    await abort();
    throw err;
  }

  return {
    path: target,
    async write(chunk) {
      if (state !== 'open') throw new Error(`write to ${target} after ${state === 'aborted' ? 'abort' : 'commit'}`);
      if (failure) return failWith(failure);
      if (stream.write(chunk)) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
      });
      if (failure) return failWith(failure);
    },
    async commit() {
      if (state !== 'open') throw new Error(`commit of ${target} after ${state === 'aborted' ? 'abort' : 'commit'}`);
      state = 'committing';
      try {
        if (!failure && !stream.closed) {
          const ended = closed();
          stream.end();
          await ended;
        }
        if (failure) throw failure;
        await publish(s, tmp, ours, target, force);
        state = 'committed';
      } catch (err) {
        state = 'open';
        await failWith(err);
      }
    },
    abort,
  };
}

/**
 * Removes a file or folder; with `within`, only after checking that its folder is really below
 * `within`, and a link at the name is removed itself, never followed.
 */
export async function removeWithin(p: string, within?: string): Promise<void> {
  if (within) {
    const dir = await fsp.realpath(path.dirname(p)).catch(() => undefined);
    if (dir === undefined) return;
    if (!insideOrAt(within, dir)) throw new OutputError('output-outside-root', p, dir);
    const st = await fsp.lstat(path.join(dir, path.basename(p))).catch(() => undefined);
    if (!st) return;
    if (!st.isDirectory()) return fsp.unlink(path.join(dir, path.basename(p)));
    return fsp.rm(path.join(dir, path.basename(p)), { recursive: true, force: true });
  }
  await fsp.rm(p, { recursive: true, force: true });
}
