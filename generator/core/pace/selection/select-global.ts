/**
 * Global ("D-pt") relevance: leverage h_s = Σ_{c ≤ nc_d} V[s,c]² in the uncentred SVD of the
 * source matrix, times |ρ_s|. Leverage favours instances that carry the matrix's main factors;
 * |ρ| keeps them tied to the target.
 */
import { rankByScore } from './select-local.js';

export function leverage(v: Float64Array, k: number, ncD: number): Float64Array {
  const cols = k ? v.length / k : 0;
  const use = Math.min(ncD, k);
  const out = new Float64Array(cols);
  for (let s = 0; s < cols; s++) {
    let h = 0;
    for (let c = 0; c < use; c++) h += (v[s * k + c] as number) ** 2;
    out[s] = h;
  }
  return out;
}

export function globalScores(v: Float64Array, k: number, ncD: number, rho: Float64Array): Float64Array {
  const h = leverage(v, k, ncD);
  for (let s = 0; s < h.length; s++) h[s] = (h[s] as number) * Math.abs(rho[s] as number);
  return h;
}

export function rankGlobal(v: Float64Array, k: number, ncD: number, rho: Float64Array): Int32Array {
  return rankByScore(globalScores(v, k, ncD, rho));
}
