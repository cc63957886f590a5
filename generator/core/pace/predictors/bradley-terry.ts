/**
 * Goal B (pairwise), PACE's `regression/pairwise.py`: over ordered pairs of training models,
 * P(i ≻ j) = σ((u_i − u_j)·w), no intercept, fitted by mean binary cross-entropy +
 * (α/2)·‖w‖², pooled over bootstrap replicates. Solved by Newton's method to a gradient norm
 * of 1e-10 (the problem is strictly convex; dimension ≤ a few dozen).
 *
 * Replicates share the pair's feature vector, so each ordered pair enters once with the count
 * of replicates in which i beat j. Replicates where the pair ties carry no order and are left
 * out (PACE's label 1[Δy > 0] would score them as losses for both orders).
 */
import { pinvSymApply } from '../numerics/linalg.js';
import { solveSpd } from '../numerics/dense.js';
import type { Rng } from '../../kernel/rng.js';

export interface BradleyTerryFit {
  w: number[];
  iterations: number;
  gradientNorm: number;
  /** Ordered (pair, replicate) rows with a strict order: the N of the mean loss. */
  rows: number;
}

export interface PairCounts {
  i: Int32Array;
  j: Int32Array;
  /** Replicates with y_i > y_j. */
  wins: Float64Array;
  /** Replicates with y_i ≠ y_j. */
  total: Float64Array;
}

/** Above this many ordered pairs (≈ 450 models), a seeded uniform sample of pairs is used. */
export const maxPairs = 200_000;

/** Ordered pairs i ≠ j with their replicate win counts (yBoot: n × B). */
export function pairCounts(yBoot: Float64Array, n: number, B: number, rng?: Rng): PairCounts {
  const is: number[] = [];
  const js: number[] = [];
  const wins: number[] = [];
  const totals: number[] = [];
  const all = n * (n - 1);
  const candidates: Array<[number, number]> = [];
  if (all > maxPairs && rng) {
    const draw = rng.fork('pairs');
    for (let t = 0; t < maxPairs; t++) {
      const i = draw.int(n);
      let j = draw.int(n - 1);
      if (j >= i) j++;
      candidates.push([i, j]);
    }
  } else for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (i !== j) candidates.push([i, j]);
  for (const [i, j] of candidates) {
    {
      let w = 0;
      let t = 0;
      for (let b = 0; b < B; b++) {
        const d = (yBoot[i * B + b] as number) - (yBoot[j * B + b] as number);
        if (d > 0) w++;
        if (d !== 0) t++;
      }
      if (t === 0) continue;
      is.push(i);
      js.push(j);
      wins.push(w);
      totals.push(t);
    }
  }
  return { i: Int32Array.from(is), j: Int32Array.from(js), wins: Float64Array.from(wins), total: Float64Array.from(totals) };
}

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));
const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

export function fitBradleyTerry(u: Float64Array, k: number, pairs: PairCounts, alpha: number): BradleyTerryFit {
  let N = 0;
  for (const t of pairs.total) N += t;
  const w = new Float64Array(k);
  const d = new Float64Array(k);
  const nPairs = pairs.i.length;
  const diff = new Float64Array(nPairs * k);
  for (let p = 0; p < nPairs; p++)
    for (let c = 0; c < k; c++) diff[p * k + c] = (u[(pairs.i[p] as number) * k + c] as number) - (u[(pairs.j[p] as number) * k + c] as number);
  const objective = (ww: Float64Array) => {
    let loss = 0;
    for (let p = 0; p < nPairs; p++) {
      let z = 0;
      for (let c = 0; c < k; c++) z += (diff[p * k + c] as number) * (ww[c] as number);
      const wins = pairs.wins[p] as number;
      const losses = (pairs.total[p] as number) - wins;
      loss += wins * softplus(-z) + losses * softplus(z);
    }
    let reg = 0;
    for (let c = 0; c < k; c++) reg += (ww[c] as number) ** 2;
    return (N ? loss / N : 0) + (alpha / 2) * reg;
  };
  let iterations = 0;
  let gradNorm = Infinity;
  if (k === 0 || N === 0) return { w: [], iterations, gradientNorm: 0, rows: N };
  for (; iterations < 100; iterations++) {
    const g = new Float64Array(k);
    const h = new Float64Array(k * k);
    for (let p = 0; p < nPairs; p++) {
      let z = 0;
      for (let c = 0; c < k; c++) z += (diff[p * k + c] as number) * (w[c] as number);
      const s = sigmoid(z);
      const total = pairs.total[p] as number;
      const resid = total * s - (pairs.wins[p] as number);
      const curv = total * s * (1 - s);
      for (let a = 0; a < k; a++) {
        const da = diff[p * k + a] as number;
        g[a] = (g[a] as number) + resid * da;
        for (let b = 0; b <= a; b++) h[a * k + b] = (h[a * k + b] as number) + curv * da * (diff[p * k + b] as number);
      }
    }
    for (let a = 0; a < k; a++) {
      g[a] = (g[a] as number) / N + alpha * (w[a] as number);
      for (let b = 0; b <= a; b++) {
        h[a * k + b] = (h[a * k + b] as number) / N + (a === b ? alpha : 0);
        h[b * k + a] = h[a * k + b] as number;
      }
    }
    gradNorm = Math.sqrt(g.reduce((s, x) => s + x * x, 0));
    if (gradNorm < 1e-10) break;
    // H = mean curvature + α·I is positive definite for α > 0: an LU solve (mathjs); with α = 0
    // and separable data it can be singular, and the pseudo-inverse step is taken instead.
    const step = solveSpd(h, k, g) ?? pinvSymApply(h, k, g, 1e-14);
    // Newton decrement: gᵀH⁻¹g / 2 bounds how far the objective is above its minimum. Once that
    // is below rounding, more iterations cannot help (and the gradient test alone may never pass
    // on a sum over 10⁵ pairs, which made each further iteration run a failing line search).
    let decrement = 0;
    for (let c = 0; c < k; c++) decrement += (g[c] as number) * (step[c] as number);
    if (decrement / 2 < 1e-20) break;
    // Damped Newton: halve until the objective does not increase (beyond its rounding).
    const before = objective(w);
    const slack = 1e-13 * Math.max(1, Math.abs(before));
    let t = 1;
    let accepted = false;
    for (let tries = 0; tries < 30; tries++, t /= 2) {
      for (let c = 0; c < k; c++) d[c] = (w[c] as number) - t * (step[c] as number);
      if (objective(d) <= before + slack) {
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    w.set(d);
  }
  return { w: Array.from(w), iterations, gradientNorm: gradNorm, rows: N };
}

/** Margin of a model at embedding `a` over one at `b`: (a − b)·w. */
export function margin(a: ArrayLike<number>, b: ArrayLike<number>, w: readonly number[]): number {
  let s = 0;
  for (let c = 0; c < w.length; c++) s += ((a[c] as number) - (b[c] as number)) * (w[c] as number);
  return s;
}

export { sigmoid };
