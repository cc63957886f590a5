import * as path from 'node:path';
import type { Finding } from './findings.js';
import { findingFactory } from './findings.js';
import { fsFindings } from './fs-findings.js';
import { sha256 } from './stable-json.js';
import type { Vfs } from './vfs.js';

/** Hidden beside a multi-file output: which files form the set and their hashes, or that it is being written. */
export const OUTPUT_SET_FILE = '.aptpace-set.json';
const OUTPUT_SET_FORMAT = 'aptpace-output-set/1';

interface OutputSetManifest {
  format: typeof OUTPUT_SET_FORMAT;
  state: 'writing' | 'complete';
  files: Record<string, { bytes: number; sha256: string }>;
}

const make = findingFactory(fsFindings);

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

  /**
   * Writes `files` as one set: the folder's set manifest first says `writing`, then each file
   * is written atomically, then the manifest lists every file with its sha256. A run killed
   * between two renames leaves `writing` (or hashes that no longer match), which
   * `verifyOutputSet` reports on load instead of mixing old and new files silently. Temp files
   * an earlier killed run left for these names are removed first. Every file is checked
   * before anything is written.
   */
  async writeSet(files: Record<string, string | Uint8Array>): Promise<void> {
    for (const rel of Object.keys(files)) await this.check(rel);
    await this.vfs.mkdirp(this.root);
    await removeOwnTemporaries(this.vfs, this.root, [...Object.keys(files), OUTPUT_SET_FILE]);
    const manifestPath = path.join(this.root, OUTPUT_SET_FILE);
    const listed: OutputSetManifest['files'] = {};
    await this.vfs.writeFileAtomic(manifestPath, `${JSON.stringify({ format: OUTPUT_SET_FORMAT, state: 'writing', files: listed } satisfies OutputSetManifest)}\n`);
    for (const [rel, data] of Object.entries(files)) {
      const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
      await this.write(rel, bytes);
      listed[rel.split(path.sep).join('/')] = { bytes: bytes.byteLength, sha256: sha256(bytes) };
    }
    const sorted = Object.fromEntries(Object.entries(listed).sort(([a], [b]) => (a < b ? -1 : 1)));
    await this.vfs.writeFileAtomic(manifestPath, `${JSON.stringify({ format: OUTPUT_SET_FORMAT, state: 'complete', files: sorted } satisfies OutputSetManifest, null, 1)}\n`);
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
  await removeOwnTemporaries(vfs, path.dirname(path.resolve(file)), [path.basename(file)]);
  await vfs.writeFileAtomic(file, data);
}

/**
 * Removes the temp files our atomic writers leave when killed (`.<name>.<hex>.tmp`), only for
 * the given names in `dir`: never anything we would not have written ourselves.
 */
export async function removeOwnTemporaries(vfs: Vfs, dir: string, names: string[]): Promise<void> {
  const wanted = new Set(names.map((n) => path.basename(n)));
  let entries: string[];
  try {
    entries = await vfs.list(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const m = /^\.(.+)\.[0-9a-f]+\.tmp$/.exec(entry);
    if (m && wanted.has(m[1]!)) await vfs.remove(path.join(dir, entry));
  }
}

/**
 * Checks a folder written by `writeSet` against its set manifest: `output-set-torn` when the
 * writer stopped half way or a file no longer has the recorded hash. `only` limits the check
 * to the files a loader reads. A folder without a set manifest (older versions) passes.
 */
export async function verifyOutputSet(vfs: Vfs, dir: string, only?: string[]): Promise<Finding[]> {
  const manifestPath = path.join(dir, OUTPUT_SET_FILE);
  let manifest: OutputSetManifest;
  try {
    if (!(await vfs.lstat(manifestPath))?.isFile) return [];
    manifest = JSON.parse(await vfs.readText(manifestPath)) as OutputSetManifest;
  } catch {
    return [];
  }
  if (manifest?.format !== OUTPUT_SET_FORMAT) return [];
  if (manifest.state !== 'complete') return [make('output-set-torn', { file: dir }, { path: dir, reason: 'incomplete', manifest: OUTPUT_SET_FILE })];
  const findings: Finding[] = [];
  for (const [rel, entry] of Object.entries(manifest.files ?? {})) {
    if (only && !only.includes(rel)) continue;
    const file = path.join(dir, rel);
    let bytes: Uint8Array;
    try {
      bytes = await vfs.readBytes(file);
    } catch {
      findings.push(make('output-set-torn', { file }, { path: file, reason: 'missing', manifest: OUTPUT_SET_FILE }));
      continue;
    }
    if (bytes.byteLength !== entry.bytes || sha256(bytes) !== entry.sha256) findings.push(make('output-set-torn', { file }, { path: file, reason: 'content differs', manifest: OUTPUT_SET_FILE }));
  }
  return findings;
}
