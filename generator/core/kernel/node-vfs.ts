import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import fg from 'fast-glob';
import { OutputError } from './confine.js';
import type { AtomicWriter, AtomicWriterOptions, FileStat, Vfs } from './vfs.js';

/** Write to a sibling temp file, then rename: readers never see half a file. */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  try {
    await fsp.mkdir(path.dirname(target), { recursive: true });
  } catch (err) {
    throw withPath(err, path.dirname(target), true);
  }
  const tmp = tempPathFor(target);
  try {
    await fsp.writeFile(tmp, data, { flag: 'wx' });
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    // The user named `target`; the temp name would only confuse.
    throw withPath(err, target, true);
  }
}

/** Dot-prefixed so directory walks skip it; random so concurrent writers never share one. */
function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.lstat(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Room for a few chunks in flight, so the caller builds the next one while the disk writes. */
const WRITE_BUFFER_BYTES = 4 << 20;

/** Filesystems without hard links (some network and FAT mounts) answer link() with these. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

/**
 * Streams into a sibling temp file and renames it over the target on commit. Without `force`,
 * commit publishes with link(): the kernel refuses atomically if the target appeared meanwhile,
 * so a user's file is never replaced even in a race.
 */
export async function openAtomicWriter(target: string, options: AtomicWriterOptions = {}): Promise<AtomicWriter> {
  const force = options.force ?? false;
  if (!force && (await exists(target))) throw new OutputError('output-exists', target);
  try {
    await fsp.mkdir(path.dirname(target), { recursive: true });
  } catch (err) {
    throw withPath(err, path.dirname(target), true);
  }
  const tmp = tempPathFor(target);
  // 'wx': never write through a file (or symlink) someone else put at the temp name.
  const stream: WriteStream = createWriteStream(tmp, { flags: 'wx', highWaterMark: WRITE_BUFFER_BYTES });
  let failure: Error | undefined;
  stream.on('error', (err) => {
    failure ??= err;
  });
  await new Promise<void>((resolve, reject) => {
    stream.once('ready', resolve);
    stream.once('error', (err) => reject(withPath(err, target, true)));
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
    await fsp.rm(tmp, { force: true });
  }

  async function failWith(err: unknown): Promise<never> {
    await abort();
    throw err;
  }

  async function publish(): Promise<void> {
    try {
      await link();
    } catch (err) {
      throw err instanceof OutputError ? err : withPath(err, target, true);
    }
  }

  async function link(): Promise<void> {
    if (force) return fsp.rename(tmp, target);
    try {
      await fsp.link(tmp, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') throw new OutputError('output-exists', target);
      if (!NO_HARD_LINKS.has(code)) throw err;
      // Without hard links the check and the rename are two steps; the window is small.
      if (await exists(target)) throw new OutputError('output-exists', target);
      return fsp.rename(tmp, target);
    }
    await fsp.rm(tmp, { force: true });
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
        await publish();
        state = 'committed';
      } catch (err) {
        state = 'open';
        await failWith(err);
      }
    },
    abort,
  };
}

/** Whether process `pid` still runs on this machine (a lock it left is stale otherwise). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** An exclusive lock file holding the owner's pid; a stale one (owner gone) is taken over once. */
async function lockFile(file: string, label: string): Promise<() => Promise<void>> {
  await fsp.mkdir(path.dirname(file), { recursive: true }).catch((err) => {
    throw withPath(err, path.dirname(file), true);
  });
  for (let attempt = 0; ; attempt++) {
    // Written aside and linked into place: the lock never exists without its owner's pid.
    const tmp = tempPathFor(file);
    try {
      await fsp.writeFile(tmp, `${process.pid}\n`, { flag: 'wx' });
      try {
        await fsp.link(tmp, file);
      } catch (err) {
        if (!NO_HARD_LINKS.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
        await fsp.writeFile(file, `${process.pid}\n`, { flag: 'wx' });
      } finally {
        await fsp.rm(tmp, { force: true });
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw withPath(err, file, true);
      const owner = Number.parseInt(await fsp.readFile(file, 'utf8').catch(() => ''), 10);
      if (attempt > 0 || (Number.isInteger(owner) && owner > 0 && alive(owner))) throw new OutputError('output-locked', label);
      await fsp.rm(file, { force: true });
    }
  }
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    await fsp.rm(file, { force: true });
  };
}

/**
 * Node leaves `path` off some errors (readFile of a folder: EISDIR with no path). Every error
 * leaving the Vfs names the path it was about, so the CLI can turn it into a finding.
 */
function withPath(err: unknown, p: string, writing = false): unknown {
  if (err && typeof err === 'object' && typeof (err as NodeJS.ErrnoException).code === 'string') {
    const e = err as NodeJS.ErrnoException & { writing?: boolean };
    e.path = p;
    if (writing) e.writing = true;
  }
  return err;
}

export const nodeVfs: Vfs = {
  async readBytes(p) {
    try {
      return new Uint8Array(await fsp.readFile(p));
    } catch (err) {
      throw withPath(err, p);
    }
  },
  async readText(p) {
    try {
      return await fsp.readFile(p, 'utf8');
    } catch (err) {
      throw withPath(err, p);
    }
  },
  async *readChunks(p, chunkSize = 1 << 20) {
    const stream = createReadStream(p, { highWaterMark: chunkSize });
    try {
      for await (const chunk of stream) yield chunk as Uint8Array;
    } catch (err) {
      throw withPath(err, p);
    }
  },
  async stat(p): Promise<FileStat | undefined> {
    try {
      const s = await fsp.stat(p);
      return { size: s.size, isFile: s.isFile(), isDirectory: s.isDirectory(), mtimeMs: s.mtimeMs };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  async lstat(p): Promise<FileStat | undefined> {
    try {
      const s = await fsp.lstat(p);
      return { size: s.size, isFile: s.isFile(), isDirectory: s.isDirectory(), mtimeMs: s.mtimeMs, isSymbolicLink: s.isSymbolicLink() };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  },
  async realpath(p) {
    return fsp.realpath(p);
  },
  async readlink(p) {
    return fsp.readlink(p);
  },
  lock: lockFile,
  async list(dir) {
    try {
      return (await fsp.readdir(dir)).sort();
    } catch (err) {
      throw withPath(err, dir);
    }
  },
  async glob(patterns, options = {}) {
    const found = await fg(patterns, { cwd: options.cwd, absolute: options.absolute ?? false, dot: false, onlyFiles: options.onlyFiles ?? true });
    return found.sort();
  },
  writeFileAtomic,
  openAtomicWriter,
  async mkdirp(dir) {
    await fsp.mkdir(dir, { recursive: true });
  },
  async remove(p) {
    await fsp.rm(p, { recursive: true, force: true });
  },
  async rename(from, to) {
    await fsp.rename(from, to);
  },
};
