import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import { OutputError, OutputFolder } from '../kernel/output.js';
import { sha256, stableStringify } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { describeFsError, walkTree } from '../kernel/walk.js';
import { emitFindings } from './findings.js';
import { MANIFEST_FILE } from './plan.js';

const make = findingFactory(emitFindings);

export interface WrittenFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface SuiteManifest {
  format: 'aptpace-suite-manifest/1';
  suite: string;
  /** Task names the suite registers, so a sibling suite can refuse to reuse them. */
  tasks: string[];
  harness_version: string;
  files: WrittenFile[];
  /**
   * `writing` while an emit replaces files in place: `previous` then lists the files of the
   * suite being replaced, so a run killed half way leaves a set that the next emit recognises
   * (each file matches the old or the new hash) and repairs, instead of a silent mix.
   */
  state?: 'writing';
  previous?: WrittenFile[];
}

export interface SuiteFolderMeta {
  suite: string;
  tasks: string[];
  harnessVersion: string;
  force: boolean;
  /** The folder is `lm_eval/tasks/<suite>` of a harness checkout: a folder we did not write is never taken over. */
  insideHarness?: boolean;
}

/**
 * Puts `files` into `target`, touching nothing else. A new folder is staged beside the target
 * and renamed into place, so it appears complete or not at all. An existing folder is never
 * moved, copied, re-created or re-permissioned (its inode, its other files, links, modes and
 * empty folders stay as they are): only the files our manifest lists — and, with `force`,
 * regular files at the names we write — are replaced, each atomically, with the manifest
 * marking the set as being written until the last file is in. A non-empty folder without our
 * manifest is refused unless `force` (always inside a harness checkout); a symbolic link where
 * we would write a file is refused, never replaced; a link to the folder itself is followed.
 */
export async function writeSuiteFolder(vfs: Vfs, target: string, files: Map<string, string>, meta: SuiteFolderMeta): Promise<{ written: WrittenFile[]; findings: Finding[] }> {
  const findings: Finding[] = [];
  const targetDir = path.resolve(target);
  const parent = path.dirname(targetDir);
  if (parent === targetDir) {
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: 'refusing to write into a filesystem root' }));
    return { written: [], findings };
  }
  let existing;
  let link;
  try {
    existing = await vfs.stat(targetDir);
    link = await vfs.lstat(targetDir);
  } catch (err) {
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: describeFsError(err) }));
    return { written: [], findings };
  }
  if (!existing && link?.isSymbolicLink) {
    findings.push(make('emit-target-symlink', { file: target }, { target, reason: 'dangling' }));
    return { written: [], findings };
  }
  if (existing && !existing.isDirectory) {
    findings.push(make('emit-target-not-directory', { file: target }, { target }));
    return { written: [], findings };
  }
  const encoded = new Map([...files].map(([rel, text]) => [rel, new TextEncoder().encode(text)] as const));
  const written: WrittenFile[] = [...encoded].map(([rel, bytes]) => ({ path: rel, bytes: bytes.length, sha256: sha256(bytes) }));
  const manifestOf = (extra: Partial<SuiteManifest> = {}): Uint8Array =>
    new TextEncoder().encode(`${stableStringify({ format: 'aptpace-suite-manifest/1', suite: meta.suite, tasks: meta.tasks, harness_version: meta.harnessVersion, files: written, ...extra } satisfies SuiteManifest, 2)}\n`);

  if (!existing) {
    const done = await createFolder(vfs, targetDir, encoded, manifestOf());
    if (done) {
      findings.push(make('emit-target-unwritable', { file: target }, { target, reason: done }));
      return { written: [], findings };
    }
    return { written: withManifest(written, manifestOf()), findings };
  }

  const plan = await planInPlace(vfs, targetDir, target, encoded, meta);
  findings.push(...plan.findings);
  if (findings.some((f) => f.severity === 'error')) return { written: [], findings };

  // Every write and removal is confined to where the folder really is: a linked subfolder
  // (`data -> ../elsewhere`) is refused before anything changes.
  const folder = new OutputFolder(vfs, targetDir, { force: true });
  let release: (() => Promise<void>) | undefined;
  try {
    for (const rel of [...encoded.keys(), ...plan.stale, MANIFEST_FILE]) await folder.resolve(rel);
    release = await folder.lock();
  } catch (err) {
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: err instanceof OutputError ? err.message : describeFsError(err) }));
    return { written: [], findings };
  }
  try {
    // 1. The set is marked as being written (old and new hashes both ours) before any file changes.
    await folder.write(MANIFEST_FILE, manifestOf({ state: 'writing', previous: plan.previous }));
    await folder.removeTemporaries([...encoded.keys(), ...plan.stale, MANIFEST_FILE]);
    for (const [rel, bytes] of encoded) await folder.write(rel, bytes);
    for (const rel of plan.stale) await folder.remove(rel);
    // 2. The last write completes the set.
    await folder.write(MANIFEST_FILE, manifestOf());
  } catch (err) {
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: describeFsError(err), partial: true }));
    return { written: [], findings };
  } finally {
    await release?.();
  }
  return { written: withManifest(written, manifestOf()), findings };
}

function withManifest(written: WrittenFile[], manifest: Uint8Array): WrittenFile[] {
  return [...written, { path: MANIFEST_FILE, bytes: manifest.length, sha256: sha256(manifest) }].sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Stages the whole suite in a hidden sibling and renames it to `targetDir`; returns the failure, if any. */
async function createFolder(vfs: Vfs, targetDir: string, encoded: Map<string, Uint8Array>, manifest: Uint8Array): Promise<string | undefined> {
  const parent = path.dirname(targetDir);
  await removeStaleStaging(vfs, parent, path.basename(targetDir));
  const staging = path.join(parent, `.${path.basename(targetDir)}.aptpace-staging-${randomBytes(6).toString('hex')}`);
  try {
    await vfs.mkdirp(staging);
    const out = new OutputFolder(vfs, staging);
    for (const [rel, bytes] of encoded) await out.write(rel, bytes);
    await out.write(MANIFEST_FILE, manifest);
    // Someone may have created the folder meanwhile: never rename over it.
    if (await vfs.lstat(targetDir)) throw new Error(`${targetDir} appeared while the suite was being written`);
    await vfs.rename(staging, targetDir);
    return undefined;
  } catch (err) {
    await vfs.remove(staging).catch(() => undefined);
    return describeFsError(err);
  }
}

interface InPlacePlan {
  findings: Finding[];
  /** Files of the previous suite, recorded while the new set is written. */
  previous: WrittenFile[];
  /** Our unchanged files that the new suite no longer produces. */
  stale: string[];
}

async function planInPlace(vfs: Vfs, targetDir: string, target: string, encoded: Map<string, Uint8Array>, meta: SuiteFolderMeta): Promise<InPlacePlan> {
  const findings: Finding[] = [];
  const manifest = await readManifestFile(vfs, path.join(targetDir, MANIFEST_FILE));
  const owned = manifestHashes(manifest);
  if (manifest?.state === 'writing') findings.push(make('emit-suite-torn', { file: path.join(target, MANIFEST_FILE) }, { target }));
  if (!owned) {
    const entries = await vfs.list(targetDir);
    if (entries.length > 0) {
      if (meta.insideHarness) {
        findings.push(make('emit-suite-folder-foreign', { file: target }, { target, count: entries.length }));
        return { findings, previous: [], stale: [] };
      }
      if (!meta.force) {
        findings.push(make('emit-target-not-empty', { file: target }, { target, count: entries.length }));
        return { findings, previous: [], stale: [] };
      }
    }
  }
  const shown = (rel: string) => path.join(target, rel);
  // Every name we are about to write: ours unchanged, or (with force) a regular file we may replace.
  for (const rel of [...encoded.keys(), MANIFEST_FILE]) {
    const file = path.join(targetDir, rel);
    const st = await vfs.lstat(file);
    if (!st) continue;
    if (st.isSymbolicLink) {
      findings.push(make('emit-target-symlink', { file: shown(rel) }, { target: shown(rel), reason: 'file' }));
      continue;
    }
    if (!st.isFile) {
      findings.push(make('emit-target-not-owned', { file: shown(rel) }, { target: shown(rel), reason: 'not-a-file' }));
      continue;
    }
    if (rel === MANIFEST_FILE && owned) continue;
    const hashes = owned?.get(rel);
    if (hashes?.has(sha256(await vfs.readBytes(file)))) continue;
    if (!meta.force) findings.push(make('emit-target-not-owned', { file: shown(rel) }, { target: shown(rel), reason: hashes ? 'modified' : 'unknown' }));
  }
  const stale: string[] = [];
  for (const [rel, hashes] of owned ?? []) {
    if (encoded.has(rel) || rel === MANIFEST_FILE) continue;
    const file = path.join(targetDir, rel);
    const st = await vfs.lstat(file);
    // Removed only when it is still exactly what we wrote: an edited file is the user's now.
    if (st?.isFile && !st.isSymbolicLink && hashes.has(sha256(await vfs.readBytes(file)))) stale.push(rel);
  }
  // The harness indexes every YAML below the suite folder: say which files are not ours.
  const tree = await walkTree(vfs, targetDir);
  findings.push(...tree.findings.filter((f) => f.severity === 'error'));
  for (const file of tree.files) {
    const rel = path.relative(targetDir, file).split(path.sep).join('/');
    if (encoded.has(rel) || rel === MANIFEST_FILE || stale.includes(rel) || owned?.has(rel)) continue;
    // Python's bytecode cache of our utils.py: the harness's, not the user's, and stale by mtime anyway.
    if (rel.split('/').includes('__pycache__')) continue;
    findings.push(make('emit-foreign-file-kept', { file: shown(rel) }, { target: shown(rel), yaml: /\.ya?ml$/i.test(rel) }));
  }
  return { findings, previous: manifest?.files ?? [], stale: stale.sort() };
}

/**
 * A process killed before its rename leaves `.<name>.aptpace-staging-*` (or, from older
 * versions, `-old-*`) beside the target; the harness would index the YAML inside them.
 */
async function removeStaleStaging(vfs: Vfs, parent: string, name: string): Promise<void> {
  const stale = new RegExp(`^\\.${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.aptpace-(staging|old)-[0-9a-f]{12}$`);
  let entries: string[] = [];
  try {
    entries = await vfs.list(parent);
  } catch {
    return;
  }
  for (const entry of entries) if (stale.test(entry)) await vfs.remove(path.join(parent, entry));
}

/** path → sha256 values that are ours (two while a write was in progress); undefined without a manifest of ours. */
function manifestHashes(manifest: Partial<SuiteManifest> | undefined): Map<string, Set<string>> | undefined {
  if (!manifest || !Array.isArray(manifest.files)) return undefined;
  const out = new Map<string, Set<string>>();
  for (const f of [...manifest.files, ...(manifest.state === 'writing' && Array.isArray(manifest.previous) ? manifest.previous : [])]) {
    if (typeof f?.path !== 'string' || typeof f?.sha256 !== 'string') continue;
    if (!out.has(f.path)) out.set(f.path, new Set());
    out.get(f.path)!.add(f.sha256);
  }
  return out;
}

/** path → the sha256 values a previous emit recorded; undefined when there is no readable manifest. */
export async function readManifest(vfs: Vfs, file: string): Promise<Map<string, Set<string>> | undefined> {
  return manifestHashes(await readManifestFile(vfs, file));
}

export async function readManifestFile(vfs: Vfs, file: string): Promise<Partial<SuiteManifest> | undefined> {
  try {
    const st = await vfs.lstat(file);
    // Never open a FIFO or follow a link someone put at our manifest's name.
    if (!st?.isFile || st.isSymbolicLink) return undefined;
    const parsed = JSON.parse(await vfs.readText(file)) as Partial<SuiteManifest>;
    return parsed?.format === 'aptpace-suite-manifest/1' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Names registered by other aptpace suites beside `suiteDir` (same include path or same
 * lm_eval/tasks): name → the suite folder that owns it. Two suites with a common task name
 * in one tree would make the harness pick one silently.
 */
export async function siblingSuiteNames(vfs: Vfs, suiteDir: string): Promise<Map<string, string>> {
  const parent = path.dirname(path.resolve(suiteDir));
  const own = path.basename(path.resolve(suiteDir));
  const out = new Map<string, string>();
  let names: string[];
  let ownReal: string | undefined;
  try {
    names = await vfs.list(parent);
    ownReal = await vfs.realpath(suiteDir).catch(() => undefined);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === own || name.startsWith('.')) continue;
    // A link to the suite folder itself (or the folder a link names) is the same suite, not a sibling.
    if (ownReal && (await vfs.realpath(path.join(parent, name)).catch(() => undefined)) === ownReal) continue;
    const manifest = await readManifestFile(vfs, path.join(parent, name, MANIFEST_FILE));
    if (!manifest) continue;
    if (typeof manifest.suite === 'string') out.set(manifest.suite, name);
    for (const t of Array.isArray(manifest.tasks) ? manifest.tasks : []) if (typeof t === 'string') out.set(t, name);
  }
  return out;
}
