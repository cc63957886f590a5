import { parsePythonStringList } from './python-repr.js';
import type { LineContent } from './sample-line.js';

/**
 * Checks one harness sample record against its own content, the way lm-eval 0.4.13 builds
 * it (evaluator.py): `doc_hash = sha256(json.dumps(doc, indent=2, ensure_ascii=False))`,
 * `prompt_hash = sha256(arguments[0][0])` (logged as `arguments.gen_args_0.arg_0`),
 * `target_hash = sha256(str(target))`. A record whose stored hash disagrees with its own
 * doc, prompt or target text was edited after the harness wrote it.
 */
export type HashField = 'doc_hash' | 'prompt_hash' | 'target_hash';

/**
 * The first stored hash that does not match the record's content (`mismatch`), and the stored
 * hashes whose content is absent from the record, so they could not be checked (`unchecked`).
 */
export function contentHashCheck(rec: Record<string, unknown>, content: LineContent): { mismatch?: HashField; unchecked: readonly HashField[] } {
  let unchecked: HashField[] | undefined;
  for (const field of HASH_FIELDS) {
    const stored = rec[field];
    if (typeof stored !== 'string') continue;
    const computed = field === 'doc_hash' ? content.docHash : field === 'prompt_hash' ? content.promptHash : content.targetHash;
    if (computed === undefined) (unchecked ??= []).push(field);
    else if (computed !== stored) return { mismatch: field, unchecked: unchecked ?? NONE };
  }
  // Every stored hash checked and matching (the common case): one shared result, nothing allocated.
  return unchecked ? { unchecked } : ALL_MATCH;
}

const HASH_FIELDS: readonly HashField[] = ['doc_hash', 'prompt_hash', 'target_hash'];
const NONE: readonly HashField[] = Object.freeze([]);
const ALL_MATCH = Object.freeze({ unchecked: NONE });

/**
 * Built-in metrics the reader can recompute from a record's `filtered_resps` and `target`
 * (only when the task has no custom `process_results`), with lm-eval 0.4.13's own semantics
 * (api/task.py `process_results`, api/metrics.py `exact_match_hf_evaluate`):
 * - `acc` of a multiple-choice task: `argmax(loglikelihoods) == gold` (np.argmax: first max);
 * - `exact_match` of a generation task without `regexes_to_ignore`, with its ignore_case /
 *   ignore_punctuation / ignore_numbers flags. A list-valued target (logged as the Python repr
 *   of the list) counts as a match when the response matches any of its elements.
 */
export type MetricRecompute =
  | { kind: 'mc-acc' }
  | { kind: 'exact-match'; ignoreCase: boolean; ignorePunctuation: boolean; ignoreNumbers: boolean };

const PUNCTUATION = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** Why a record's metric could not be recomputed (the record keeps its logged value). */
export type RecomputeGap = 'no-filtered-resps' | 'no-target' | 'response-shape' | 'gold-out-of-range';

/** The recomputed value, or the reason the record does not have the shape to recompute it. */
export function recomputeMetric(rec: Record<string, unknown>, how: MetricRecompute): number | { gap: RecomputeGap } {
  const resps = rec.filtered_resps;
  if (!Array.isArray(resps) || resps.length === 0) return { gap: 'no-filtered-resps' };
  if (typeof rec.target !== 'string') return { gap: 'no-target' };
  if (how.kind === 'mc-acc') {
    if (!/^\d+$/.test(rec.target)) return { gap: 'no-target' };
    const gold = Number(rec.target);
    // np.argmax: the first of the largest; every response must be a finite log-likelihood.
    let best = 0;
    let top = -Infinity;
    for (let i = 0; i < resps.length; i++) {
      const r: unknown = resps[i];
      const ll = Array.isArray(r) ? Number(r[0]) : NaN;
      if (!Number.isFinite(ll)) return { gap: 'response-shape' };
      if (i === 0 || ll > top) {
        best = i;
        top = ll;
      }
    }
    if (gold >= resps.length) return { gap: 'gold-out-of-range' };
    return best === gold ? 1 : 0;
  }
  const pred = resps[0];
  if (typeof pred !== 'string') return { gap: 'response-shape' };
  const norm = (s: string) => {
    // numpy's unicode arrays drop trailing NULs before comparing.
    s = s.replace(/\0+$/, '');
    if (how.ignoreCase) s = s.toLowerCase();
    if (how.ignorePunctuation) s = s.replace(PUNCTUATION, '');
    if (how.ignoreNumbers) s = s.replace(/[0-9]/g, '');
    return s;
  };
  const golds = parsePythonStringList(rec.target) ?? [rec.target];
  const p = norm(pred);
  return golds.some((g) => norm(g) === p) ? 1 : 0;
}
