import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import fg from 'fast-glob';
import { OutputError } from './confine.js';
import { NO_HARD_LINKS, openAtomicWriter, removeWithin, tempPathFor, withPath, writeFileAtomic } from './node-write.js';
import type { FileStat, Vfs } from './vfs.js';

export { openAtomicWriter, writeFileAtomic } from './node-write.js';

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
  async listTyped(dir) {
    try {
      const entries = await fsp.readdir(dir, { withFileTypes: true });
      return entries
        .map((e) => ({ name: e.name, type: e.isFile() ? ('file' as const) : e.isDirectory() ? ('directory' as const) : ('other' as const) }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
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
  async remove(p, options) {
    await removeWithin(p, options?.within);
  },
  async rename(from, to) {
    await fsp.rename(from, to);
  },
};
