/**
 * How far a checkpoint's embedding coordinates move by its item draws alone.
 *
 * Each proxy item is one draw. With the checkpoint's own proxy accuracy p, an item's score (any
 * score in [0, 1] whose mean is p) has variance at most p(1 − p). A coordinate is a fixed linear
 * map of the scores — u = x·P, with P the embedding's projection, or for a partly observed row the
 * least-squares map of its observed rows — so its standard error is √(p(1 − p)·Σ_s P_sj²).
 *
 * Why the range guard needs it: with a reference pool of n models, a checkpoint drawn from the
 * same population lies outside the pool's box on one coordinate with probability 2/(n + 1) by
 * which items it happened to get right, and `check` tests several coordinates. A checkpoint of
 * a series shares its item draws with the next one, so a lucky draw moves a whole run of
 * checkpoints out together. An excursion smaller than the coordinate's own sampling noise is
 * not evidence that the prediction extrapolates; one beyond it is (skill.ts rangeExcursions).
 * An oracle or an all-wrong checkpoint has p(1 − p) = 0: its coordinates are taken as exact.
 */
import type { LinearEmbedding } from '../embedding/embed.js';
import { pinvSym } from '../numerics/linalg.js';

/** Standard errors an excursion must exceed, besides the width tolerance, to count as outside. */
export const rangeNoiseZ = 2;

/** Per-item score variance bound for a checkpoint with proxy accuracy `p`. */
export function itemVariance(p: number): number {
  return Number.isFinite(p) ? Math.max(0, p * (1 - p)) : 0;
}

/**
 * Σ_s P_sj² per coordinate j, where P maps the observed scores of `x` (NaN = unobserved) to the
 * coordinates embedPartial returns; null when fewer rows are observed than dimensions.
 */
export function projectionSquares(x: ArrayLike<number>, e: LinearEmbedding): Float64Array | null {
  const k = e.k;
  const obs: number[] = [];
  for (let s = 0; s < x.length; s++) if (!Number.isNaN(x[s] as number)) obs.push(s);
  const out = new Float64Array(k);
  if (obs.length === x.length) {
    for (let s = 0; s < x.length; s++) for (let j = 0; j < k; j++) out[j] = (out[j] as number) + (e.proj[s * k + j] as number) ** 2;
    return out;
  }
  if (obs.length < k) return null;
  // Least squares on the observed rows A of the basis: u = (AᵀA)⁺Aᵀx, so P = A·(AᵀA)⁺.
  const ata = new Float64Array(k * k);
  for (const s of obs)
    for (let p = 0; p < k; p++) for (let q = 0; q < k; q++) ata[p * k + q] = (ata[p * k + q] as number) + (e.basis[s * k + p] as number) * (e.basis[s * k + q] as number);
  const inv = pinvSym(ata, k);
  for (const s of obs)
    for (let j = 0; j < k; j++) {
      let pj = 0;
      for (let p = 0; p < k; p++) pj += (e.basis[s * k + p] as number) * (inv[p * k + j] as number);
      out[j] = (out[j] as number) + pj * pj;
    }
  return out;
}

/** Standard error of each coordinate from the item variance bound; null as projectionSquares. */
export function coordinateStandardErrors(x: ArrayLike<number>, e: LinearEmbedding, variance: number): Float64Array | null {
  const sq = projectionSquares(x, e);
  return sq ? sq.map((v) => Math.sqrt(variance * v)) : null;
}
