/**
 * `aptpace ls` and `aptpace validate`: what a path holds (an emitted suite, a folder of suites,
 * a score store, a PACE model file, a config file) and whether it is intact. Pure over the Vfs.
 */
import * as path from 'node:path';
import { type Finding, findingFactory } from '../kernel/findings.js';
import { sha256 } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { STORE_FILES, tryLoadStore } from '../logs/store.js';
import { parseModelFile } from '../pace/model-file/model-file.js';
import { workflowFindings } from './findings.js';
import { parseReferenceFile } from './reference.js';
import { readSuiteTasks } from './suite-tasks.js';

const make = findingFactory(workflowFindings);
const MANIFEST = 'aptpace-manifest.json';

export type Listing =
  | { kind: 'suite'; path: string; suite: string; tasks: Array<{ task: string; documents: number }> }
  | { kind: 'store'; path: string; models: string[]; instances: number; tasks: Array<{ task: string; instances: number }>; targets: Array<{ target: string; models: number }> }
  | { kind: 'model-file'; path: string; targets: string[]; scales: Record<string, string>; proxy: number; poolModels: number; tasks: Array<{ task: string; instances: number }> }
  | { kind: 'reference'; path: string; references: string[]; checkpoints: string[]; targets: string[] }
  | { kind: 'config'; path: string; stages: string[] };

async function readJson(vfs: Vfs, file: string): Promise<unknown> {
  try {
    return JSON.parse(await vfs.readText(file));
  } catch {
    return undefined;
  }
}

const countBy = (keys: string[]) => {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
};

/** What `target` holds; a folder of suites lists each suite. */
export async function listPath(vfs: Vfs, target: string, shown: string): Promise<{ listings: Listing[]; findings: Finding[] }> {
  const st = await vfs.stat(target);
  if (!st) return { listings: [], findings: [make('ls-unrecognised', { file: shown }, { reason: 'no such file or folder' })] };
  if (st.isDirectory) {
    if (await vfs.stat(path.join(target, MANIFEST))) {
      const read = await readSuiteTasks(vfs, target, shown);
      const manifest = (await readJson(vfs, path.join(target, MANIFEST))) as { suite?: unknown } | undefined;
      if (!read.suite) return { listings: [], findings: read.findings };
      return { listings: [{ kind: 'suite', path: shown, suite: typeof manifest?.suite === 'string' ? manifest.suite : path.basename(target), tasks: read.suite.tasks.map(({ task, documents }) => ({ task, documents })) }], findings: read.findings };
    }
    if (await vfs.stat(path.join(target, STORE_FILES.manifest))) {
      const { store, findings } = await tryLoadStore(vfs, target);
      if (!store) return { listings: [], findings };
      const m = store.matrix;
      return {
        listings: [{
          kind: 'store', path: shown, models: m.models.map((x) => x.name), instances: m.instances.length,
          tasks: countBy(m.instances.map((i) => i.task)).map(([task, instances]) => ({ task, instances })),
          targets: store.targets.map((t) => ({ target: t.target, models: Object.keys(t.scores).length })),
        }],
        findings,
      };
    }
    const listings: Listing[] = [];
    const findings: Finding[] = [];
    for (const name of (await vfs.list(target)).sort()) {
      if ((await vfs.stat(path.join(target, name)))?.isDirectory && (await vfs.stat(path.join(target, name, MANIFEST)))) {
        const r = await listPath(vfs, path.join(target, name), path.join(shown, name));
        listings.push(...r.listings);
        findings.push(...r.findings);
      }
    }
    if (listings.length === 0 && findings.length === 0) findings.push(make('ls-unrecognised', { file: shown }, { reason: `no suite (${MANIFEST}), score store (${STORE_FILES.manifest}) or folder of suites` }));
    return { listings, findings };
  }
  const text = await vfs.readText(target);
  const model = /\.json$/i.test(target) ? parseModelFile(text).model : null;
  if (model) {
    return {
      listings: [{
        kind: 'model-file', path: shown, targets: model.targets.map((t) => t.target), scales: Object.fromEntries(model.targets.map((t) => [t.target, t.scale])), proxy: model.proxy.length, poolModels: model.data.poolModels.length,
        tasks: Object.entries(model.data.instancesByTask).sort(([a], [b]) => (a < b ? -1 : 1)).map(([task, instances]) => ({ task, instances })),
      }],
      findings: [],
    };
  }
  const config = await readConfig(text, shown);
  if (config) return { listings: [config.listing], findings: [] };
  return { listings: [], findings: [make('ls-unrecognised', { file: shown }, { reason: 'not a PACE model file, reference file or aptpace.yaml' })] };
}

async function readConfig(text: string, shown: string): Promise<{ listing: Listing } | undefined> {
  const kind = await configKind(text);
  if (kind === 'config') {
    const { parse } = await import('yaml');
    return { listing: { kind: 'config', path: shown, stages: Object.keys(parse(text, { logLevel: 'error' })).filter((k) => k !== 'format') } };
  }
  if (kind === 'reference') {
    const { reference } = parseReferenceFile(text, shown);
    if (reference) return { listing: { kind: 'reference', path: shown, references: reference.references.map((r) => r.name), checkpoints: reference.checkpoints.map((c) => c.name), targets: reference.targets } };
  }
  return undefined;
}

/** Checks an emitted suite against its manifest: every listed file present with its hash, every task readable. */
export async function validateSuite(vfs: Vfs, dir: string, shown: string): Promise<Finding[]> {
  const manifest = (await readJson(vfs, path.join(dir, MANIFEST))) as { files?: Array<{ path: string; sha256: string }> } | undefined;
  if (!manifest || !Array.isArray(manifest.files)) return [make('validate-suite-file', { file: path.join(shown, MANIFEST) }, { problem: 'no readable manifest with a file list' })];
  const findings: Finding[] = [];
  for (const f of manifest.files) {
    const file = path.join(dir, f.path);
    let bytes: Uint8Array;
    try {
      bytes = await vfs.readBytes(file);
    } catch {
      findings.push(make('validate-suite-file', { file: path.join(shown, f.path) }, { problem: 'listed in the manifest but missing or unreadable' }));
      continue;
    }
    if (sha256(bytes) !== f.sha256) findings.push(make('validate-suite-file', { file: path.join(shown, f.path) }, { problem: 'changed since emit (its sha256 differs from the manifest); re-emit the suite' }));
  }
  findings.push(...(await readSuiteTasks(vfs, dir, shown)).findings);
  return findings;
}

/** Which kind of config a file is, for validate: `aptpace.yaml` or a reference file. */
export async function configKind(text: string): Promise<'config' | 'reference' | undefined> {
  const { parse } = await import('yaml');
  try {
    const doc = parse(text, { logLevel: 'error' });
    if (doc?.format === 'aptpace-config/1') return 'config';
    if (doc && typeof doc === 'object' && ('references' in doc || doc.format === 'aptpace-reference/1')) return 'reference';
  } catch {
    return undefined;
  }
  return undefined;
}
