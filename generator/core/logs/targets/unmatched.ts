/**
 * Target rows for models the store holds no suite scores for: they can never enter a fit, and a
 * whole targets file keyed by other names (a reference `name:` vs the harness's `pretrained=`
 * name) would otherwise leave fit with "0 pool models" and nothing said at ingest.
 */
import type { Finding } from '../../kernel/findings.js';
import { logsFinding } from '../findings.js';
import type { TargetTable } from '../matrix.js';

export function targetModelsNotInStore(targets: TargetTable[], storeModels: readonly string[], file?: string): Finding[] {
  const known = new Set(storeModels);
  const findings: Finding[] = [];
  for (const t of targets) {
    const models = Object.keys(t.scores);
    const missing = models.filter((m) => !known.has(m)).sort();
    if (missing.length === 0) continue;
    findings.push(logsFinding('targets-model-not-in-store', file ? { file } : {}, { target: t.target, count: missing.length, total: models.length, examples: missing.slice(0, 5).join(', '), models: missing }));
  }
  return findings;
}
