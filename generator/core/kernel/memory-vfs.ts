import * as path from 'node:path';
import { OutputError } from './confine.js';
import type { AtomicWriter, AtomicWriterOptions, FileStat, Vfs } from './vfs.js';

/** An in-memory Vfs for unit tests of pure core code. Paths are POSIX-normalised. */
export class MemoryVfs implements Vfs {
  readonly files = new Map<string, Uint8Array>();
  private tempCounter = 0;

  constructor(initial: Record<string, string | Uint8Array> = {}) {
    for (const [p, data] of Object.entries(initial)) this.files.set(norm(p), toBytes(data));
  }

  async readBytes(p: string) {
    const data = this.files.get(norm(p));
    if (!data) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
    return data;
  }
  async readText(p: string) {
    return new TextDecoder().decode(await this.readBytes(p));
  }
  async *readChunks(p: string, chunkSize = 1 << 16) {
    const data = await this.readBytes(p);
    for (let i = 0; i < data.length; i += chunkSize) yield data.subarray(i, i + chunkSize);
  }
  async stat(p: string): Promise<FileStat | undefined> {
    const key = norm(p);
    const data = this.files.get(key);
    if (data) return { size: data.length, isFile: true, isDirectory: false, mtimeMs: 0 };
    const prefix = key.endsWith('/') ? key : `${key}/`;
    for (const k of this.files.keys()) if (k.startsWith(prefix)) return { size: 0, isFile: false, isDirectory: true, mtimeMs: 0 };
    return undefined;
  }
  async lstat(p: string) {
    return this.stat(p);
  }
  async realpath(p: string) {
    return norm(p);
  }
  async readlink(p: string): Promise<string> {
    throw Object.assign(new Error(`EINVAL: ${p} is not a link`), { code: 'EINVAL' });
  }
  async lock(file: string, label: string) {
    const key = norm(file);
    if (this.files.has(key)) throw new OutputError('output-locked', label);
    this.files.set(key, toBytes('memory\n'));
    return async () => {
      this.files.delete(key);
    };
  }
  async list(dir: string) {
    const prefix = `${norm(dir)}/`;
    const names = new Set<string>();
    for (const k of this.files.keys()) if (k.startsWith(prefix)) names.add(k.slice(prefix.length).split('/')[0]!);
    return [...names].sort();
  }
  async glob(patterns: string[]) {
    const regexes = patterns.map(globToRegExp);
    return [...this.files.keys()].filter((k) => regexes.some((r) => r.test(k))).sort();
  }
  async writeFileAtomic(p: string, data: string | Uint8Array) {
    this.files.set(norm(p), toBytes(data));
  }
  /**
   * Same contract as the node implementation: the temp file is visible in `files` while the
   * writer is open (so tests can see it), and only commit makes the target appear.
   */
  async openAtomicWriter(p: string, options: AtomicWriterOptions = {}): Promise<AtomicWriter> {
    const target = norm(p);
    const force = options.force ?? false;
    if (!force && this.files.has(target)) throw new OutputError('output-exists', p);
    const tmp = path.posix.join(path.posix.dirname(target), `.${path.posix.basename(target)}.${++this.tempCounter}.tmp`);
    // Grows by doubling so many small writes stay linear.
    let buffer = new Uint8Array(1024);
    let length = 0;
    this.files.set(tmp, buffer.subarray(0, 0));
    let state: 'open' | 'committed' | 'aborted' = 'open';
    const refuse = (what: string) => new Error(`${what} of ${p} after ${state === 'aborted' ? 'abort' : 'commit'}`);
    const abort = async () => {
      if (state !== 'open') return;
      state = 'aborted';
      this.files.delete(tmp);
    };
    return {
      path: p,
      write: async (chunk) => {
        if (state !== 'open') throw refuse('write');
        const bytes = toBytes(chunk);
        if (length + bytes.length > buffer.length) {
          const grown = new Uint8Array(Math.max(buffer.length * 2, length + bytes.length));
          grown.set(buffer.subarray(0, length));
          buffer = grown;
        }
        buffer.set(bytes, length);
        length += bytes.length;
        this.files.set(tmp, buffer.subarray(0, length));
      },
      commit: async () => {
        if (state !== 'open') throw refuse('commit');
        if (!force && this.files.has(target)) {
          await abort();
          throw new OutputError('output-exists', p);
        }
        this.files.delete(tmp);
        this.files.set(target, buffer.slice(0, length));
        state = 'committed';
      },
      abort,
    };
  }
  async mkdirp() {}
  async remove(p: string) {
    const key = norm(p);
    for (const k of [...this.files.keys()]) if (k === key || k.startsWith(`${key}/`)) this.files.delete(k);
  }
  async rename(from: string, to: string) {
    const data = await this.readBytes(from);
    this.files.delete(norm(from));
    this.files.set(norm(to), data);
  }
}

function norm(p: string): string {
  return path.posix.normalize(p.replace(/\\/g, '/'));
}
function toBytes(data: string | Uint8Array): Uint8Array {
  return typeof data === 'string' ? new TextEncoder().encode(data) : data;
}
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
        if (glob[i + 1] === '/') i++;
      } else re += '[^/]*';
    } else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}
