import { createHash } from 'node:crypto';
import { harnessDocHash, skipValue, topLevelSpans } from './json-text.js';

/**
 * Checks one harness sample record against its own content, the way lm-eval 0.4.13 builds
 * it (evaluator.py): `doc_hash = sha256(json.dumps(doc, indent=2, ensure_ascii=False))`,
 * `prompt_hash = sha256(arguments[0][0])` (logged as `arguments.gen_args_0.arg_0`),
 * `target_hash = sha256(str(target))`. A record whose stored hash disagrees with its own
 * doc, prompt or target text was edited after the harness wrote it.
 */
export type HashField = 'doc_hash' | 'prompt_hash' | 'target_hash';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** The first stored hash that does not match the record's content, or undefined. */
export function contentHashMismatch(rec: Record<string, unknown>, docRaw: string | undefined): HashField | undefined {
  if (typeof rec.doc_hash === 'string' && docRaw !== undefined && harnessDocHash(docRaw) !== rec.doc_hash) return 'doc_hash';
  const args = rec.arguments as Record<string, Record<string, unknown>> | undefined;
  const prompt = args && typeof args === 'object' ? args.gen_args_0?.arg_0 : undefined;
  if (typeof rec.prompt_hash === 'string' && typeof prompt === 'string' && sha256(prompt) !== rec.prompt_hash) return 'prompt_hash';
  if (typeof rec.target_hash === 'string' && typeof rec.target === 'string' && sha256(rec.target) !== rec.target_hash) return 'target_hash';
  return undefined;
}

/** Our question id: a non-empty string `id` at the top level of the doc text. */
export function questionIdOf(docRaw: string | undefined): string {
  if (!docRaw) return '';
  const spans = topLevelSpans(docRaw);
  const at = spans?.get('id');
  if (!at) return '';
  try {
    const id: unknown = JSON.parse(docRaw.slice(at[0], at[1]));
    return typeof id === 'string' && id.trim() !== '' ? id : '';
  } catch {
    return '';
  }
}

/** The raw text of the top-level `doc` value in a record line (undefined when absent). */
export function docSpan(text: string, spans: Map<string, [number, number]> | undefined): string | undefined {
  const at = spans?.get('doc');
  if (!at) return undefined;
  return skipValue(text, at[0]) === at[1] ? text.slice(at[0], at[1]) : undefined;
}

/**
 * Built-in metrics the reader can recompute from a record's `filtered_resps` and `target`
 * (only when the task has no custom `process_results`):
 * - `acc` of a multiple-choice task: `argmax(loglikelihoods) == gold` (np.argmax: first max);
 * - `exact_match` of a generation task without `regexes_to_ignore`: the harness's
 *   exact_match_hf_evaluate with its ignore_case / ignore_punctuation / ignore_numbers flags.
 */
export type MetricRecompute =
  | { kind: 'mc-acc' }
  | { kind: 'exact-match'; ignoreCase: boolean; ignorePunctuation: boolean; ignoreNumbers: boolean };

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** The recomputed value, or undefined when the record does not have the shape to recompute it. */
export function recomputeMetric(rec: Record<string, unknown>, how: MetricRecompute): number | undefined {
  const resps = rec.filtered_resps;
  if (!Array.isArray(resps) || typeof rec.target !== 'string') return undefined;
  if (how.kind === 'mc-acc') {
    if (!/^\d+$/.test(rec.target)) return undefined;
    const gold = Number(rec.target);
    const lls: number[] = [];
    for (const r of resps) {
      const ll = Array.isArray(r) ? Number(r[0]) : NaN;
      if (!Number.isFinite(ll)) return undefined;
      lls.push(ll);
    }
    if (lls.length === 0 || gold >= lls.length) return undefined;
    let best = 0;
    for (let i = 1; i < lls.length; i++) if (lls[i]! > lls[best]!) best = i;
    return best === gold ? 1 : 0;
  }
  const pred = resps[0];
  if (typeof pred !== 'string') return undefined;
  const norm = (s: string) => {
    if (how.ignoreCase) s = s.toLowerCase();
    if (how.ignorePunctuation) s = s.replace(PUNCTUATION, '');
    if (how.ignoreNumbers) s = s.replace(/[0-9]/g, '');
    return s;
  };
  return norm(pred) === norm(rec.target) ? 1 : 0;
}
