/** Per-kind counts of a built set, for the build's summary. */
import { LENGTH_BUCKETS } from './buckets.js';
import type { Question } from './types.js';

/** Questions per kind and length bucket (APTBench's ≤4K, 4–16K, 16–32K, >32K), for summaries. */
export function lengthBucketsByKind(questions: ReadonlyArray<Pick<Question, 'kind' | 'length_bucket'>>): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const q of questions) {
    const kind = (out[q.kind] ??= Object.fromEntries(LENGTH_BUCKETS.map((b) => [b.bucket, 0])));
    kind[q.length_bucket] = (kind[q.length_bucket] ?? 0) + 1;
  }
  return out;
}

/** Counts per kind, for summaries. */
export function countByKind(questions: ReadonlyArray<Pick<Question, 'kind'>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const q of questions) out[q.kind] = (out[q.kind] ?? 0) + 1;
  return out;
}
