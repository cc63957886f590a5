import { createReadStream } from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import fg from 'fast-glob';
import type { FileStat, Vfs } from './vfs.js';

/** Write to a sibling temp file, then rename: readers never see half a file. */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  await fsp.mkdir(path.dirname(target), { recursive: true });
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fsp.writeFile(tmp, data);
    await fsp.rename(tmp, target);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
}

export const nodeVfs: Vfs = {
  async readBytes(p) {
    return new Uint8Array(await fsp.readFile(p));
  },
  async readText(p) {
    return fsp.readFile(p, 'utf8');
  },
  async *readChunks(p, chunkSize = 1 << 20) {
    const stream = createReadStream(p, { highWaterMark: chunkSize });
    for await (const chunk of stream) yield chunk as Uint8Array;
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
  async list(dir) {
    return (await fsp.readdir(dir)).sort();
  },
  async glob(patterns, options = {}) {
    const found = await fg(patterns, { cwd: options.cwd, absolute: options.absolute ?? false, dot: false, onlyFiles: true });
    return found.sort();
  },
  writeFileAtomic,
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
