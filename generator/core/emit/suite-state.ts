import * as path from 'node:path';
import { type Finding, findingFactory } from '../kernel/findings.js';
import { sha256 } from '../kernel/stable-json.js';
import type { Vfs } from '../kernel/vfs.js';
import { emitFindings } from './findings.js';
import { readManifestFile } from './install.js';
import { MANIFEST_FILE } from './plan.js';

const make = findingFactory(emitFindings);

/**
 * What a consumer of an emitted suite (plan --suite, fit --suite) checks before using it: the
 * manifest does not say an emit stopped half way, and every file it lists is there with the
 * recorded hash. A folder without our manifest is left to the consumer's own reading.
 */
export async function verifySuiteFolder(vfs: Vfs, suiteDir: string, shown = suiteDir): Promise<Finding[]> {
  const manifest = await readManifestFile(vfs, path.join(suiteDir, MANIFEST_FILE));
  if (!manifest) return [];
  const file = path.join(shown, MANIFEST_FILE);
  if (manifest.state === 'writing') return [make('suite-set-torn', { file }, { target: shown, reason: 'writing', file: MANIFEST_FILE })];
  const findings: Finding[] = [];
  for (const entry of Array.isArray(manifest.files) ? manifest.files : []) {
    if (typeof entry?.path !== 'string' || typeof entry.sha256 !== 'string') continue;
    let bytes: Uint8Array | undefined;
    try {
      bytes = await vfs.readBytes(path.join(suiteDir, entry.path));
    } catch {
      bytes = undefined;
    }
    if (!bytes || sha256(bytes) !== entry.sha256) findings.push(make('suite-set-torn', { file: path.join(shown, entry.path) }, { target: shown, reason: bytes ? 'differs' : 'missing', file: entry.path }));
  }
  return findings;
}
