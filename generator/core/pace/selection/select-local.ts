/**
 * Local ("H") relevance: |Spearman ρ| of each instance with the target over training models.
 * Returns the eligible instances ranked best first (ties broken by instance order, so the
 * ranking is reproducible); instances whose ρ is undefined (constant over the training models)
 * are not eligible.
 */
export function rankByScore(scores: Float64Array): Int32Array {
  let finite = 0;
  for (let i = 0; i < scores.length; i++) if (Number.isFinite(scores[i] as number)) finite++;
  const idx = new Int32Array(finite);
  // Sort keys: each score's IEEE bits mapped so that unsigned order is descending score order
  // (−0 taken as 0, as the comparison it replaces does), as two 32-bit halves.
  const hi = new Uint32Array(finite);
  const lo = new Uint32Array(finite);
  const bits = new Float64Array(1);
  const words = new Uint32Array(bits.buffer);
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  for (let i = 0, k = 0; i < scores.length; i++) {
    const x = scores[i] as number;
    if (!Number.isFinite(x)) continue;
    bits[0] = x + 0;
    let h = words[little ? 1 : 0] as number;
    let l = words[little ? 0 : 1] as number;
    // Ascending unsigned order of doubles: flip every bit of a negative, the sign bit of the rest;
    // then every bit again for descending.
    if (h >>> 31) {
      h = ~h;
      l = ~l;
    } else h ^= 0x80000000;
    hi[k] = ~h >>> 0;
    lo[k] = ~l >>> 0;
    idx[k++] = i;
  }
  return radixOrder(idx, hi, lo);
}

/**
 * `idx` ordered by (hi, lo) ascending, stably (equal keys keep their order: ascending index):
 * a least-significant-digit radix sort in 16-bit digits, four passes. At 100,000 instances it
 * replaces a comparison sort that took most of a fold's ranking time.
 */
function radixOrder(idx: Int32Array, hi: Uint32Array, lo: Uint32Array): Int32Array {
  const n = idx.length;
  let order = Int32Array.from({ length: n }, (_, k) => k);
  let next = new Int32Array(n);
  const count = new Int32Array(65537);
  for (const [words, shift] of [
    [lo, 0],
    [lo, 16],
    [hi, 0],
    [hi, 16],
  ] as const) {
    count.fill(0);
    for (let k = 0; k < n; k++) count[(((words[k] as number) >>> shift) & 0xffff) + 1]!++;
    for (let d = 0; d < 65536; d++) count[d + 1]! += count[d]!;
    for (let t = 0; t < n; t++) {
      const k = order[t] as number;
      next[count[((words[k] as number) >>> shift) & 0xffff]!++] = k;
    }
    [order, next] = [next, order];
  }
  return Int32Array.from(order, (k) => idx[k] as number);
}

export function localScores(rho: Float64Array): Float64Array {
  const out = new Float64Array(rho.length);
  for (let i = 0; i < rho.length; i++) out[i] = Math.abs(rho[i] as number);
  return out;
}

export function rankLocal(rho: Float64Array): Int32Array {
  return rankByScore(localScores(rho));
}
