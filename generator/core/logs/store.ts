import * as path from 'node:path';
import type { Finding } from '../kernel/findings.js';
import { OutputFolder, verifyOutputSet } from '../kernel/output.js';
import { sha256, stableStringify } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { logsFinding } from './findings.js';
import type { InstanceRef, ModelRef, ScoreMatrix, TargetTable } from './matrix.js';
import { sharedFloat64, sharedMinCells } from '../kernel/shared-memory.js';

/**
 * The matrix store: a folder with
 *   store.json   manifest: format version, shape, models, instances, provenance, targets,
 *                and the byte size + sha256 of each binary
 *   values.f64   models × instances Float64, little-endian, row-major (model-major)
 *   observed.u8  one byte per cell, 1 = observed, 0 = missing
 * The binaries load straight into typed arrays; the manifest is written last, so a
 * half-written store fails its hash check instead of loading wrong numbers.
 */
export const STORE_FORMAT = 'aptpace-score-store';
export const STORE_VERSION = 1;
export const STORE_FILES = { manifest: 'store.json', values: 'values.f64', observed: 'observed.u8' } as const;

export interface ScoreStore {
  matrix: ScoreMatrix;
  targets: TargetTable[];
}

interface BinaryEntry {
  name: string;
  bytes: number;
  sha256: string;
  dtype: 'float64-le' | 'uint8';
}

interface Manifest {
  format: typeof STORE_FORMAT;
  version: number;
  shape: [number, number];
  models: ModelRef[];
  instances: InstanceRef[];
  provenance: Record<string, unknown>;
  targets: TargetTable[];
  files: { values: BinaryEntry; observed: BinaryEntry };
}

export class StoreError extends Error {
  constructor(readonly findings: Finding[]) {
    super(`cannot load the score store: ${findings.map((f) => f.code).join(', ')}`);
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function float64ToLeBytes(values: Float64Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new Uint8Array(values.length * 8);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setFloat64(i * 8, v, true));
  return out;
}

function leBytesToFloat64(bytes: Uint8Array): Float64Array {
  if (LITTLE_ENDIAN) {
    // A large matrix is copied once into shared memory, which PACE's kernel thread reads in
    // place (pace/numerics/kernel-thread.ts); a small one is a view when aligned (no copy),
    // otherwise one copy into fresh, aligned memory.
    if (bytes.byteLength / 8 >= sharedMinCells) {
      const out = sharedFloat64(bytes.byteLength / 8);
      new Uint8Array(out.buffer).set(bytes);
      return out;
    }
    if (bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    return new Float64Array(bytes.slice().buffer);
  }
  const out = new Float64Array(bytes.byteLength / 8);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/**
 * Writes the store into `dir` (created if needed). Refuses to replace an existing store
 * unless `force` (throws OutputError('output-exists') before writing anything).
 * Missing cells are written as 0 in values.f64 and 0 in observed.u8. Output is
 * byte-identical for identical input.
 */
export async function saveStore(vfs: Vfs, dir: string, store: { matrix: ScoreMatrix; targets?: TargetTable[] }, options: { force?: boolean } = {}): Promise<string[]> {
  const { matrix } = store;
  const cells = matrix.models.length * matrix.instances.length;
  if (matrix.values.length !== cells || matrix.observed.length !== cells) {
    throw new Error(`internal: matrix arrays hold ${matrix.values.length}/${matrix.observed.length} cells, shape needs ${cells}`);
  }
  const out = new OutputFolder(vfs, dir, { force: options.force, set: 'ingest' });
  for (const name of Object.values(STORE_FILES)) await out.check(name);

  // Placeholders are zeroed so that the file (and its hash) does not depend on stale values.
  const values = new Float64Array(matrix.values);
  for (let i = 0; i < cells; i++) if (!matrix.observed[i] || Number.isNaN(values[i])) values[i] = 0;
  const valueBytes = float64ToLeBytes(values);
  const observedBytes = matrix.observed;

  const manifest: Manifest = {
    format: STORE_FORMAT,
    version: STORE_VERSION,
    shape: [matrix.models.length, matrix.instances.length],
    models: matrix.models,
    instances: matrix.instances,
    provenance: matrix.provenance,
    targets: store.targets ?? [],
    files: {
      values: { name: STORE_FILES.values, bytes: valueBytes.byteLength, sha256: sha256(valueBytes), dtype: 'float64-le' },
      observed: { name: STORE_FILES.observed, bytes: observedBytes.byteLength, sha256: sha256(observedBytes), dtype: 'uint8' },
    },
  };
  // store.json (last) records the binaries' hashes, so a torn store is refused on load; the set manifest adds the 'writing' mark and temp cleanup.
  await out.writeSet({ [STORE_FILES.values]: valueBytes, [STORE_FILES.observed]: observedBytes, [STORE_FILES.manifest]: `${stableStringify(manifest, 1)}\n` });
  return out.written.map((f) => path.join(out.root, f));
}

/** Loads and validates a store; the findings explain any refusal (missing files, sizes, hashes, version). */
export async function tryLoadStore(vfs: Vfs, dir: string): Promise<{ store?: ScoreStore; findings: Finding[] }> {
  const findings: Finding[] = [];
  const manifestPath = path.join(dir, STORE_FILES.manifest);
  let manifest: Manifest;
  try {
    const text = await vfs.readText(manifestPath);
    manifest = JSON.parse(text) as Manifest;
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    findings.push(
      missing
        ? logsFinding('store-missing-file', { file: manifestPath }, { name: STORE_FILES.manifest })
        : logsFinding('store-bad-manifest', { file: manifestPath }, { reason: (err as Error).message }),
    );
    return { findings };
  }
  if (manifest && typeof manifest === 'object' && manifest.format === STORE_FORMAT && manifest.version !== STORE_VERSION) {
    findings.push(logsFinding('store-format-version', { file: manifestPath }, { found: manifest.version, supported: STORE_VERSION }));
    return { findings };
  }
  const problem = manifestProblem(manifest);
  if (problem) {
    findings.push(logsFinding('store-bad-manifest', { file: manifestPath }, { reason: problem }));
    return { findings };
  }
  const [m, n] = manifest.shape;
  const binaries: Record<'values' | 'observed', Uint8Array | undefined> = { values: undefined, observed: undefined };
  for (const key of ['values', 'observed'] as const) {
    const entry = manifest.files[key];
    const file = path.join(dir, entry.name);
    let bytes: Uint8Array;
    try {
      bytes = await vfs.readBytes(file);
    } catch {
      findings.push(logsFinding('store-missing-file', { file }, { name: entry.name }));
      continue;
    }
    const expected = m * n * (key === 'values' ? 8 : 1);
    if (bytes.byteLength !== expected || entry.bytes !== expected) {
      findings.push(logsFinding('store-size-mismatch', { file }, { name: entry.name, found: bytes.byteLength, expected, models: m, instances: n }));
      continue;
    }
    const digest = sha256(bytes);
    if (digest !== entry.sha256) {
      findings.push(logsFinding('store-hash-mismatch', { file }, { name: entry.name, found: digest, expected: entry.sha256 }));
      continue;
    }
    binaries[key] = bytes;
  }
  if (!binaries.values || !binaries.observed) return { findings };
  const observed = binaries.observed;
  let bad = 0;
  for (let i = 0; i < observed.length; i++) if (observed[i]! > 1) bad++;
  if (bad) {
    findings.push(logsFinding('store-bad-mask', { file: path.join(dir, STORE_FILES.observed) }, { count: bad }));
    return { findings };
  }
  // Each file may match its hash and the set still be torn: a writer killed before it marked the set complete.
  const torn = await verifyOutputSet(vfs, dir, 'ingest', [STORE_FILES.manifest]);
  if (torn.length) return { findings: [...findings, ...torn] };
  const matrix: ScoreMatrix = {
    models: manifest.models,
    instances: manifest.instances,
    values: leBytesToFloat64(binaries.values),
    observed,
    provenance: manifest.provenance ?? {},
  };
  return { store: { matrix, targets: manifest.targets ?? [] }, findings };
}

/** Like tryLoadStore, but throws StoreError (carrying the findings) when the store cannot be used. */
export async function loadStore(vfs: Vfs, dir: string): Promise<ScoreStore> {
  const { store, findings } = await tryLoadStore(vfs, dir);
  if (!store) throw new StoreError(findings);
  return store;
}

function manifestProblem(m: Manifest): string | undefined {
  if (!m || typeof m !== 'object') return 'not a JSON object';
  if (m.format !== STORE_FORMAT) return `format is ${JSON.stringify(m.format)}, expected ${JSON.stringify(STORE_FORMAT)}`;
  if (!Array.isArray(m.shape) || m.shape.length !== 2 || !m.shape.every((x) => Number.isInteger(x) && x >= 0)) return 'shape must be [models, instances]';
  if (!Array.isArray(m.models) || m.models.length !== m.shape[0]) return `models lists ${m.models?.length} names, shape says ${m.shape[0]}`;
  if (!Array.isArray(m.instances) || m.instances.length !== m.shape[1]) return `instances lists ${m.instances?.length}, shape says ${m.shape[1]}`;
  if (!m.files?.values?.name || !m.files?.observed?.name) return 'files.values / files.observed missing';
  for (const f of [m.files.values.name, m.files.observed.name]) {
    if (f.includes('/') || f.includes('\\') || f.startsWith('.')) return `binary name ${JSON.stringify(f)} must be a plain file name`;
  }
  const names = new Set<string>();
  for (const model of m.models) {
    if (typeof model?.name !== 'string') return 'a model has no name';
    if (names.has(model.name)) return `model ${model.name} is listed twice`;
    names.add(model.name);
  }
  const keys = new Set<string>();
  for (const inst of m.instances) {
    if (typeof inst?.key !== 'string') return 'an instance has no key';
    if (keys.has(inst.key)) return `instance ${inst.key} is listed twice`;
    keys.add(inst.key);
  }
  return undefined;
}
