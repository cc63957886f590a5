/**
 * Local ("H") relevance: |Spearman ρ| of each instance with the target over training models.
 * Returns the eligible instances ranked best first (ties broken by instance order, so the
 * ranking is reproducible); instances whose ρ is undefined (constant over the training models)
 * are not eligible.
 */
export function rankByScore(scores: Float64Array): Int32Array {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) if (Number.isFinite(scores[i] as number)) idx.push(i);
  idx.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
  return Int32Array.from(idx);
}

export function localScores(rho: Float64Array): Float64Array {
  const out = new Float64Array(rho.length);
  for (let i = 0; i < rho.length; i++) out[i] = Math.abs(rho[i] as number);
  return out;
}

export function rankLocal(rho: Float64Array): Int32Array {
  return rankByScore(localScores(rho));
}
