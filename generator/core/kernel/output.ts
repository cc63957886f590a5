import * as path from 'node:path';
import type { Vfs } from './vfs.js';

export class OutputError extends Error {
  constructor(
    readonly code: 'output-outside-root' | 'output-exists',
    readonly target: string,
  ) {
    super(code === 'output-exists' ? `${target} exists; pass --force to overwrite it` : `${target} is outside the output folder`);
  }
}

/**
 * Every command that writes goes through one of these: paths are confined to `root`,
 * existing files are only replaced with `force` (or when `owned` says we wrote them),
 * and each file is written atomically.
 */
export class OutputFolder {
  readonly root: string;
  readonly written: string[] = [];

  constructor(
    private readonly vfs: Vfs,
    root: string,
    private readonly options: { force?: boolean; owned?: (relative: string) => boolean } = {},
  ) {
    this.root = path.resolve(root);
  }

  resolve(relative: string): string {
    const target = path.resolve(this.root, relative);
    const rel = path.relative(this.root, target);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new OutputError('output-outside-root', relative);
    return target;
  }

  /** Throws OutputError('output-exists') unless the write is allowed. Call for every file before writing any. */
  async check(relative: string): Promise<void> {
    const target = this.resolve(relative);
    const existing = await this.vfs.stat(target);
    if (existing && !this.options.force && !this.options.owned?.(relative)) throw new OutputError('output-exists', target);
  }

  async write(relative: string, data: string | Uint8Array): Promise<string> {
    await this.check(relative);
    const target = this.resolve(relative);
    await this.vfs.writeFileAtomic(target, data);
    this.written.push(relative);
    return target;
  }
}

/** Single-file output (e.g. `--out file.jsonl`) with the same no-clobber rule. */
export async function writeOutputFile(vfs: Vfs, file: string, data: string | Uint8Array, force = false): Promise<void> {
  if (!force && (await vfs.stat(file))) throw new OutputError('output-exists', file);
  await vfs.writeFileAtomic(file, data);
}
