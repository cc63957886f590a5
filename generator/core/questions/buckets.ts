import type { LengthBucket } from './types.js';

/** APTBench-style length buckets; bounds are in tokens (K = 1024). */
export const LENGTH_BUCKETS: ReadonlyArray<{ bucket: LengthBucket; maxTokens: number }> = [
  { bucket: '<=4K', maxTokens: 4 * 1024 },
  { bucket: '4-16K', maxTokens: 16 * 1024 },
  { bucket: '16-32K', maxTokens: 32 * 1024 },
  { bucket: '>32K', maxTokens: Number.POSITIVE_INFINITY },
];

export function lengthBucket(tokens: number): LengthBucket {
  for (const b of LENGTH_BUCKETS) if (tokens <= b.maxTokens) return b.bucket;
  return '>32K';
}
