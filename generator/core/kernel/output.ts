import * as path from 'node:path';
import type { Finding } from './findings.js';
import { findingFactory } from './findings.js';
import { fsFindings } from './fs-findings.js';
import { sha256 } from './stable-json.js';
import { confinedTarget, namedOutputTarget, OutputError, realPathOf } from './confine.js';
import { writeLinesAtomic, type AtomicWriter, type Vfs } from './vfs.js';

export { OutputError } from './confine.js';

/**
 * Hidden beside a multi-file output, one per writing command (`.aptpace-set.<command>.json`):
 * which files that command's set holds and their hashes, or that it is being written. Two
 * commands writing into one folder keep two manifests; neither hides the other's tear.
 */
export const outputSetFile = (set: string): string => `.aptpace-set.${set}.json`;
const OUTPUT_SET_FORMAT = 'aptpace-output-set/1';
/** Held (created exclusively) while one process writes into a folder. */
export const OUTPUT_LOCK_FILE = '.aptpace.lock';

interface OutputSetManifest {
  format: typeof OUTPUT_SET_FORMAT;
  set: string;
  state: 'writing' | 'complete';
  files: Record<string, { bytes: number; sha256: string }>;
}

const make = findingFactory(fsFindings);

export interface OutputFolderOptions {
  force?: boolean;
  owned?: (relative: string) => boolean;
  /** The writing command: names the folder's set manifest. */
  set?: string;
}

/**
 * Every command that writes goes through one of these: each path is confined to `root` by
 * where it really lands (`confinedTarget` follows every link on the way), existing files are
 * only replaced with `force` (or when `owned` says we wrote them), each file is written
 * atomically, and a set is written under the folder's exclusive lock.
 */
export class OutputFolder {
  readonly root: string;
  readonly written: string[] = [];

  constructor(
    private readonly vfs: Vfs,
    root: string,
    private readonly options: OutputFolderOptions = {},
  ) {
    this.root = path.resolve(root);
  }

  /** The real path `relative` would be written to; throws OutputError('output-outside-root'). */
  resolve(relative: string): Promise<string> {
    return confinedTarget(this.vfs, this.root, relative);
  }

  /**
   * What the writes themselves are confined to: the check above is made before a write, and a
   * folder can be swapped for a link between the two, so the Vfs checks again as it writes.
   */
  private async within(): Promise<{ within: string }> {
    return { within: await realPathOf(this.vfs, this.root) };
  }

  /** Throws OutputError unless the write is allowed. Call for every file before writing any. */
  async check(relative: string): Promise<string> {
    const target = await this.resolve(relative);
    const existing = await this.vfs.lstat(target);
    if (existing && !this.options.force && !this.options.owned?.(relative)) throw new OutputError('output-exists', path.resolve(this.root, relative));
    return target;
  }

  /**
   * Writes `files` as one set, holding the folder's lock: the command's set manifest first says
   * `writing`, then each file is written atomically, then the manifest lists every file with
   * its sha256. A run killed between two renames leaves `writing` (or hashes that no longer
   * match), which `verifyOutputSet` reports on load instead of mixing old and new files
   * silently. Temp files an earlier killed run left for these names are removed first (under
   * the lock, so never a live writer's). Every file is checked before anything is written.
   */
  async writeSet(files: Record<string, string | Uint8Array>): Promise<void> {
    const set = this.options.set ?? 'output';
    for (const rel of Object.keys(files)) await this.check(rel);
    await this.vfs.mkdirp(await namedOutputTarget(this.vfs, this.root));
    const release = await this.lock();
    try {
      // Checked again under the lock: a writer that finished meanwhile is not overwritten.
      for (const rel of Object.keys(files)) await this.check(rel);
      const manifestRel = outputSetFile(set);
      await this.removeTemporaries([...Object.keys(files), manifestRel]);
      const manifestPath = await this.resolve(manifestRel);
      const listed: OutputSetManifest['files'] = {};
      await this.vfs.writeFileAtomic(manifestPath, `${JSON.stringify({ format: OUTPUT_SET_FORMAT, set, state: 'writing', files: listed } satisfies OutputSetManifest)}\n`, await this.within());
      for (const [rel, data] of Object.entries(files)) {
        const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
        await this.write(rel, bytes);
        listed[rel.split(path.sep).join('/')] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
      }
      const sorted = Object.fromEntries(Object.entries(listed).sort(([a], [b]) => (a < b ? -1 : 1)));
      await this.vfs.writeFileAtomic(manifestPath, `${JSON.stringify({ format: OUTPUT_SET_FORMAT, set, state: 'complete', files: sorted } satisfies OutputSetManifest, null, 1)}\n`, await this.within());
    } finally {
      await release();
    }
  }

  /** Takes the folder's exclusive lock; throws OutputError('output-locked') when another writer holds it. */
  async lock(): Promise<() => Promise<void>> {
    return this.vfs.lock(await this.resolve(OUTPUT_LOCK_FILE), this.root);
  }

  async write(relative: string, data: string | Uint8Array): Promise<string> {
    const target = await this.check(relative);
    await this.vfs.writeFileAtomic(target, data, await this.within());
    this.written.push(relative);
    return target;
  }

  /** Removes a file or folder below the root (confined like a write). */
  async remove(relative: string): Promise<void> {
    await this.vfs.remove(await this.resolve(relative), await this.within());
  }

  /** Temp files a killed run left for these names, in whichever real folder each name lands. */
  async removeTemporaries(names: string[]): Promise<void> {
    const byDir = new Map<string, string[]>();
    for (const rel of names) {
      const real = await this.resolve(rel);
      const dir = path.dirname(real);
      byDir.set(dir, [...(byDir.get(dir) ?? []), path.basename(real)]);
    }
    for (const [dir, base] of byDir) await removeOwnTemporaries(this.vfs, dir, base, await this.within());
  }
}

/**
 * Single-file output (`--out file.json`, `--findings-file`, `--history`, a status file) with
 * the same rules: no clobber without `force`, atomic, and a link at the name the user gave is
 * followed (the file it points to is updated; the link stays).
 */
export async function writeOutputFile(vfs: Vfs, file: string, data: string | Uint8Array, force = false): Promise<string> {
  const target = await namedOutputTarget(vfs, file);
  if (!force && (await vfs.lstat(target))) throw new OutputError('output-exists', file);
  const release = await vfs.lock(path.join(path.dirname(target), `.${path.basename(target)}.aptpace.lock`), file);
  try {
    await removeOwnTemporaries(vfs, path.dirname(target), [path.basename(target)]);
    await vfs.writeFileAtomic(target, data);
  } finally {
    await release();
  }
  return target;
}

/** Streaming counterpart of `writeOutputFile` for one named file. */
export async function openOutputFile(vfs: Vfs, file: string, options: { force?: boolean } = {}): Promise<AtomicWriter> {
  const target = await namedOutputTarget(vfs, file);
  if (!options.force && (await vfs.lstat(target))) throw new OutputError('output-exists', file);
  await removeOwnTemporaries(vfs, path.dirname(target), [path.basename(target)]);
  return vfs.openAtomicWriter(target, options);
}

/** `writeLinesAtomic` to a named output file (links followed, no clobber without force). */
export async function writeOutputLines(vfs: Vfs, file: string, lines: AsyncIterable<string> | Iterable<string>, options: { force?: boolean } = {}): Promise<number> {
  const target = await namedOutputTarget(vfs, file);
  if (!options.force && (await vfs.lstat(target))) throw new OutputError('output-exists', file);
  await removeOwnTemporaries(vfs, path.dirname(target), [path.basename(target)]);
  return writeLinesAtomic(vfs, target, lines, options);
}

/**
 * Removes the temp files our atomic writers leave when killed (`.<name>.<hex>.tmp`), only for
 * the given names in `dir`: never anything we would not have written ourselves.
 */
export async function removeOwnTemporaries(vfs: Vfs, dir: string, names: string[], confine?: { within: string }): Promise<void> {
  const wanted = new Set(names.map((n) => path.basename(n)));
  let entries: string[];
  try {
    entries = await vfs.list(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const m = /^\.(.+)\.[0-9a-f]+\.tmp$/.exec(entry);
    if (m && wanted.has(m[1]!)) await vfs.remove(path.join(dir, entry), confine);
  }
}

/**
 * Checks a folder written by `writeSet` against the named command's set manifest:
 * `output-set-torn` when the writer stopped half way or a file no longer has the recorded hash,
 * `output-set-foreign` when a file the loader `reads` is not part of that command's set. A
 * folder without that command's manifest (written by hand or by an older version) passes.
 */
export async function verifyOutputSet(vfs: Vfs, dir: string, set: string, reads: string[] = []): Promise<Finding[]> {
  const manifestPath = path.join(dir, outputSetFile(set));
  let manifest: OutputSetManifest;
  try {
    if (!(await vfs.lstat(manifestPath))?.isFile) return [];
    manifest = JSON.parse(await vfs.readText(manifestPath)) as OutputSetManifest;
  } catch {
    return [make('output-set-torn', { file: manifestPath }, { path: dir, reason: 'unreadable manifest', manifest: outputSetFile(set) })];
  }
  if (manifest?.format !== OUTPUT_SET_FORMAT) return [make('output-set-torn', { file: manifestPath }, { path: dir, reason: 'unreadable manifest', manifest: outputSetFile(set) })];
  if (manifest.state !== 'complete') return [make('output-set-torn', { file: dir }, { path: dir, reason: 'incomplete', manifest: outputSetFile(set) })];
  const findings: Finding[] = [];
  const files = manifest.files && typeof manifest.files === 'object' ? manifest.files : {};
  for (const rel of reads) if (!(rel in files)) findings.push(make('output-set-foreign', { file: path.join(dir, rel) }, { path: path.join(dir, rel), set, manifest: outputSetFile(set) }));
  for (const [rel, entry] of Object.entries(files)) {
    const file = path.join(dir, rel);
    let bytes: Uint8Array;
    try {
      bytes = await vfs.readBytes(file);
    } catch {
      findings.push(make('output-set-torn', { file }, { path: file, reason: 'missing', manifest: outputSetFile(set) }));
      continue;
    }
    if (bytes.byteLength !== entry?.bytes || sha256(bytes) !== entry.sha256) findings.push(make('output-set-torn', { file }, { path: file, reason: 'content differs', manifest: outputSetFile(set) }));
  }
  return findings;
}
