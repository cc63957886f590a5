/**
 * Injected file access. Core code takes a `Vfs` instead of importing `fs`, so it can be
 * tested against an in-memory tree and so every write goes through the output guard.
 */
export interface FileStat {
  size: number;
  isFile: boolean;
  isDirectory: boolean;
  mtimeMs: number;
  /** Only from `lstat`: the path itself is a symbolic link. */
  isSymbolicLink?: boolean;
}

/**
 * A file being written in pieces: the bytes go to a temp file beside the target, which only
 * becomes the target on `commit`. Until then the target is untouched; `abort` (or any failed
 * write) removes the temp file, so a crash mid-write leaves neither a half file nor litter.
 */
export interface AtomicWriter {
  /** Absolute or caller-relative path that `commit` will create or replace. */
  readonly path: string;
  /**
   * Queues a chunk. Resolves at once while the writer's buffer has room and only waits for the
   * disk when it is full (backpressure), so producing the next chunk overlaps the I/O.
   * Rejects if an earlier write failed; the writer is then aborted.
   */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Flushes, closes and renames the temp file over the target. */
  commit(): Promise<void>;
  /** Discards everything written; the target keeps its previous content. Safe to call twice. */
  abort(): Promise<void>;
}

/** Where a confined write stands when `onStep` is called. */
export type WriteStep = 'folders-made' | 'temp-opened' | 'temp-written' | 'published';

export interface WriteOptions {
  /**
   * The real output folder the write must stay in. Checked again at every step, not only before
   * the write: each folder on the way is made and checked below it, the temp file is checked
   * to be ours and below it after it is opened and before it is renamed, and the file once it
   * is in place; a swapped-in link is refused with OutputError('output-outside-root').
   */
  within?: string;
  /** Called between the steps of a write (tests swap a folder for a link exactly there). */
  onStep?: (step: WriteStep) => Promise<void> | void;
}

export interface AtomicWriterOptions extends WriteOptions {
  /** Replace an existing target. Without it, an existing target is refused with OutputError('output-exists'), checked at open and again at commit. */
  force?: boolean;
}

export interface Vfs {
  readBytes(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  /** Streams a file in chunks; large files never need to fit in memory. */
  readChunks(path: string, chunkSize?: number): AsyncIterable<Uint8Array>;
  stat(path: string): Promise<FileStat | undefined>;
  /** Like stat, but describes a symbolic link itself instead of its target. */
  lstat(path: string): Promise<FileStat | undefined>;
  /** The canonical path with every symbolic link resolved (walkers use it to detect loops). */
  realpath(path: string): Promise<string>;
  /** The text of a symbolic link (where it points), unresolved. */
  readlink(path: string): Promise<string>;
  /**
   * Creates `lockFile` exclusively and returns its release. Throws OutputError('output-locked',
   * label) while another live process holds it; a lock left by a process that no longer runs is
   * taken over.
   */
  lock(lockFile: string, label: string): Promise<() => Promise<void>>;
  /** Immediate children names of a directory (sorted). */
  list(dir: string): Promise<string[]>;
  /**
   * Optional: `list` with each entry's type as the directory records it (no stat per entry):
   * 'other' for links, FIFOs, sockets and types the file system does not record, which a
   * walker then stats. Only for a Vfs whose `stat` agrees with its directories.
   */
  listTyped?(dir: string): Promise<{ name: string; type: 'file' | 'directory' | 'other' }[]>;
  /** fast-glob style patterns, results sorted for determinism; `onlyFiles: false` also returns folders, FIFOs and sockets. */
  glob(patterns: string[], options?: { cwd?: string; absolute?: boolean; onlyFiles?: boolean }): Promise<string[]>;
  writeFileAtomic(path: string, data: string | Uint8Array, options?: WriteOptions): Promise<void>;
  /** Streaming counterpart of writeFileAtomic for outputs too large to build in memory. */
  openAtomicWriter(path: string, options?: AtomicWriterOptions): Promise<AtomicWriter>;
  mkdirp(dir: string): Promise<void>;
  /** Removes a file or folder; with `within`, only when its folder is really below it (a link at the name is removed, not followed). */
  remove(path: string, options?: Pick<WriteOptions, 'within'>): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}

/** Bytes gathered before one write: large enough that per-write costs vanish, small enough to stay bounded. */
const LINE_BATCH_BYTES = 1 << 20;

/**
 * Writes `lines` (each without its newline) as one file through `vfs.openAtomicWriter`: the
 * target appears complete or not at all, and memory stays bounded by one batch however many
 * lines there are. Lines are UTF-8-encoded straight into a batch buffer; building one big
 * string and encoding it afterwards costs about twice as much. Returns the number of lines.
 */
export async function writeLinesAtomic(vfs: Vfs, path: string, lines: AsyncIterable<string> | Iterable<string>, options: AtomicWriterOptions = {}): Promise<number> {
  const writer = await vfs.openAtomicWriter(path, options);
  const encoder = new TextEncoder();
  let count = 0;
  try {
    let batch = new Uint8Array(LINE_BATCH_BYTES);
    let used = 0;
    for await (const line of lines) {
      count++;
      // encodeInto needs room for the worst case: 3 bytes per UTF-16 unit, plus the newline.
      const worst = line.length * 3 + 1;
      if (used + worst > batch.length && used > 0) {
        // The writer may hold on to the bytes until they reach the disk: hand it this buffer, start a new one.
        await writer.write(batch.subarray(0, used));
        batch = new Uint8Array(Math.max(LINE_BATCH_BYTES, worst));
        used = 0;
      } else if (worst > batch.length) batch = new Uint8Array(worst);
      used += encoder.encodeInto(line, batch.subarray(used)).written;
      batch[used++] = 0x0a;
    }
    if (used > 0) await writer.write(batch.subarray(0, used));
    await writer.commit();
  } finally {
    // A no-op after commit; otherwise (a producer threw, the disk filled) the temp file goes.
    await writer.abort();
  }
  return count;
}
