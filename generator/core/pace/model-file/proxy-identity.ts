/**
 * Is the checkpoint's run the proxy suite the model was fitted on? A proxy instance is a
 * document: `fit` records the harness's `doc_hash` of each one (when its scores came from harness
 * logs), and a checkpoint whose log shows another hash under the same key answered a different
 * question (a re-emitted suite with a changed gold or prompt, or an edited proxy suite). Its
 * score is then not used: the instance counts as missing, with an error naming it, so such a
 * run never passes a check on numbers that belong to another suite.
 */
import type { ScoreMatrix } from '../../logs/matrix.js';
import { findingFactory, type Finding } from '../../kernel/findings.js';
import { paceFindings } from '../findings.js';
import type { PaceModelFile } from './model-file.js';

const make = findingFactory(paceFindings);

/** The checkpoint's scores without the proxy instances whose document is not the fitted one. */
export function verifyProxyDocuments(model: PaceModelFile, matrix: ScoreMatrix, scores: Map<string, number>): { scores: Map<string, number>; findings: Finding[] } {
  const logged = new Map(matrix.instances.filter((i) => typeof i.doc_hash === 'string' && i.doc_hash).map((i) => [i.key, i.doc_hash as string]));
  const findings: Finding[] = [];
  let kept = scores;
  for (const p of model.proxy) {
    const fitted = p.doc_hash;
    const seen = logged.get(p.key);
    if (!fitted || !seen || fitted === seen || !scores.has(p.key)) continue;
    if (kept === scores) kept = new Map(scores);
    kept.delete(p.key);
    findings.push(make('pace-proxy-document-changed', { field: p.key }, { key: p.key, task: p.task, fitted, logged: seen }));
  }
  return { scores: kept, findings };
}
