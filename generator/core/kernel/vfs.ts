/**
 * Injected file access. Core code takes a `Vfs` instead of importing `fs`, so it can be
 * tested against an in-memory tree and so every write goes through the output guard.
 */
export interface FileStat {
  size: number;
  isFile: boolean;
  isDirectory: boolean;
  mtimeMs: number;
}

export interface Vfs {
  readBytes(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  /** Streams a file in chunks; large files never need to fit in memory. */
  readChunks(path: string, chunkSize?: number): AsyncIterable<Uint8Array>;
  stat(path: string): Promise<FileStat | undefined>;
  /** Immediate children names of a directory (sorted). */
  list(dir: string): Promise<string[]>;
  /** fast-glob style patterns, results sorted for determinism. */
  glob(patterns: string[], options?: { cwd?: string; absolute?: boolean }): Promise<string[]>;
  writeFileAtomic(path: string, data: string | Uint8Array): Promise<void>;
  mkdirp(dir: string): Promise<void>;
  remove(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
}
