import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import { OutputFolder } from '../kernel/output.js';
import { sha256, stableStringify } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
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
}

/**
 * Puts `files` into `target` as one unit. Everything is staged in a hidden sibling folder
 * and checked first; then the staged folder replaces the target with two renames, so a
 * reader sees the old suite or the new one, never a mix. Files the previous manifest lists
 * (unchanged) are ours to replace or drop; any other existing file blocks the write unless
 * `force` — and even then files we do not produce are carried over, not deleted.
 */
export async function writeSuiteFolder(
  vfs: Vfs,
  target: string,
  files: Map<string, string>,
  meta: { suite: string; tasks: string[]; harnessVersion: string; force: boolean },
): Promise<{ written: WrittenFile[]; findings: Finding[] }> {
  const findings: Finding[] = [];
  const targetDir = path.resolve(target);
  const parent = path.dirname(targetDir);
  if (parent === targetDir) {
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: 'refusing to replace a filesystem root' }));
    return { written: [], findings };
  }

  const existing = await statOrError(vfs, targetDir);
  if (existing instanceof Error) {
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: existing.message }));
    return { written: [], findings };
  }
  if (existing && !existing.isDirectory) {
    findings.push(make('emit-target-not-directory', { file: target }, { target }));
    return { written: [], findings };
  }

  const carryOver: string[] = [];
  if (existing) {
    const owned = await readManifest(vfs, path.join(targetDir, MANIFEST_FILE));
    for (const rel of await walkFiles(vfs, targetDir)) {
      if (rel === MANIFEST_FILE && owned) continue;
      // Python's bytecode cache of our utils.py: disposable, and stale once utils.py is rewritten.
      if (rel.split('/').includes('__pycache__')) continue;
      const ours = owned?.get(rel);
      const produced = files.has(rel) || rel === MANIFEST_FILE;
      const shown = path.join(target, rel);
      if (ours !== undefined) {
        if (ours === sha256(await vfs.readBytes(path.join(targetDir, rel)))) continue;
        // Changed since we wrote it: replacing or dropping it would lose the user's edit.
        if (!meta.force) findings.push(make('emit-target-not-owned', { file: shown }, { target: shown, reason: 'modified' }));
        continue;
      }
      if (produced) {
        if (!meta.force) findings.push(make('emit-target-not-owned', { file: shown }, { target: shown, reason: 'unknown' }));
        continue;
      }
      carryOver.push(rel);
      findings.push(make('emit-foreign-file-kept', { file: shown }, { target: shown, yaml: rel.endsWith('.yaml') }));
    }
  }
  if (findings.some((f) => f.severity === 'error')) return { written: [], findings };

  await removeStaleStaging(vfs, parent, path.basename(targetDir));
  const tag = randomBytes(6).toString('hex');
  const staging = path.join(parent, `.${path.basename(targetDir)}.aptpace-staging-${tag}`);
  const retired = path.join(parent, `.${path.basename(targetDir)}.aptpace-old-${tag}`);
  const written: WrittenFile[] = [];
  let manifestEntry: WrittenFile | undefined;
  try {
    await vfs.mkdirp(staging);
    const out = new OutputFolder(vfs, staging);
    for (const [rel, text] of files) {
      const bytes = new TextEncoder().encode(text);
      await out.write(rel, bytes);
      written.push({ path: rel, bytes: bytes.length, sha256: sha256(bytes) });
    }
    for (const rel of carryOver) await out.write(rel, await vfs.readBytes(path.join(targetDir, rel)));
    const manifest: SuiteManifest = { format: 'aptpace-suite-manifest/1', suite: meta.suite, tasks: meta.tasks, harness_version: meta.harnessVersion, files: written };
    const manifestBytes = new TextEncoder().encode(`${stableStringify(manifest, 2)}\n`);
    await out.write(MANIFEST_FILE, manifestBytes);
    manifestEntry = { path: MANIFEST_FILE, bytes: manifestBytes.length, sha256: sha256(manifestBytes) };

    if (existing) {
      await vfs.rename(targetDir, retired);
      try {
        await vfs.rename(staging, targetDir);
      } catch (err) {
        await vfs.rename(retired, targetDir);
        throw err;
      }
      await vfs.remove(retired);
    } else {
      await vfs.rename(staging, targetDir);
    }
  } catch (err) {
    await vfs.remove(staging).catch(() => undefined);
    findings.push(make('emit-target-unwritable', { file: target }, { target, reason: describeError(err) }));
    return { written: [], findings };
  }
  const all = [...written, manifestEntry!].sort((a, b) => (a.path < b.path ? -1 : 1));
  return { written: all, findings };
}

/**
 * A process killed between the two renames leaves `.<name>.aptpace-staging-*` or `-old-*`
 * beside the target; the harness would index the YAML inside them, so they go first.
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

async function statOrError(vfs: Vfs, p: string) {
  try {
    return await vfs.stat(p);
  } catch (err) {
    return new Error(describeError(err));
  }
}

function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code} (${e.syscall ?? 'write'} ${e.path ?? ''})`.replace(/ \)$/, ')') : String((err as Error).message ?? err);
}

/** path → sha256 of every file a previous emit recorded; undefined when there is no readable manifest. */
export async function readManifest(vfs: Vfs, file: string): Promise<Map<string, string> | undefined> {
  const parsed = await readManifestFile(vfs, file);
  if (!parsed || !Array.isArray(parsed.files)) return undefined;
  return new Map(parsed.files.filter((f) => typeof f?.path === 'string' && typeof f?.sha256 === 'string').map((f) => [f.path, f.sha256]));
}

async function readManifestFile(vfs: Vfs, file: string): Promise<Partial<SuiteManifest> | undefined> {
  try {
    if (!(await vfs.stat(file))?.isFile) return undefined;
    const parsed = JSON.parse(await vfs.readText(file)) as Partial<SuiteManifest>;
    return parsed.format === 'aptpace-suite-manifest/1' ? parsed : undefined;
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
  try {
    names = await vfs.list(parent);
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === own || name.startsWith('.')) continue;
    const manifest = await readManifestFile(vfs, path.join(parent, name, MANIFEST_FILE));
    if (!manifest) continue;
    if (typeof manifest.suite === 'string') out.set(manifest.suite, name);
    for (const t of Array.isArray(manifest.tasks) ? manifest.tasks : []) if (typeof t === 'string') out.set(t, name);
  }
  return out;
}

/** Every file under `root`, as sorted POSIX paths relative to it (hidden files included). */
async function walkFiles(vfs: Vfs, root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of await vfs.list(path.join(root, rel))) {
    const child = rel ? `${rel}/${name}` : name;
    const s = await vfs.stat(path.join(root, child));
    if (s?.isDirectory) out.push(...(await walkFiles(vfs, root, child)));
    else if (s) out.push(child);
  }
  return out.sort();
}
