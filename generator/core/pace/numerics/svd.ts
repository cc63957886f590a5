/**
 * Leading singular triplets of an uncentred matrix view. Selection needs only the first
 * ~10 right singular vectors, so we never run a full SVD of the 10⁴–10⁵-wide instance axis:
 *  - few rows: eigen-decompose the rows × rows Gram matrix X·Xᵀ, then V = Xᵀ·U·Σ⁻¹;
 *  - many rows: a randomized range finder with power iterations (Halko, Martinsson & Tropp
 *    2011), which touches X only through X·Ω and Xᵀ·Q products.
 */
import { gatherRow, gramRows, orthonormalizeColumns, viewCols, type MatrixView } from './kernels.js';
import { mulLeftT, mulRight } from './products.js';
import { binaryMasks, mulLeftTBits, mulRightBits } from './binary-products.js';
import { symmetricEigen, type SymmetricEigen } from './linalg.js';
import type { Rng } from '../../kernel/rng.js';

export interface TopSvd {
  /** Number of components returned (≤ requested; components with σ ≈ 0 are dropped). */
  k: number;
  singularValues: Float64Array;
  /** rows × k, row-major. */
  u: Float64Array;
  /** cols × k, row-major (column j = j-th right singular vector over the view's columns). */
  v: Float64Array;
  method: 'gram' | 'randomized';
}

export interface SvdOptions {
  /** Row count above which the randomized route is used (Gram cost grows as rows²). */
  gramMaxRows?: number;
  oversample?: number;
  powerIterations?: number;
  rng?: Rng;
  /** Eigensolver for the small Gram matrix (default: the typed-array Jacobi of linalg.ts). */
  eigen?: (a: Float64Array, n: number) => SymmetricEigen;
  /** The view's rows × rows Gram matrix X·Xᵀ when the caller already has it (shared-gram.ts); used on the Gram route only. */
  gram?: () => Float64Array;
}

export function topSvd(view: MatrixView, k: number, options: SvdOptions = {}): TopSvd {
  const n = view.rows.length;
  const gramMaxRows = options.gramMaxRows ?? 128;
  const nc = viewCols(view);
  // A tall, narrow view (e.g. 500 models × 50 selected instances) decomposes through its small
  // cols × cols Gram matrix instead.
  const eigen = options.eigen ?? symmetricEigen;
  if (nc < n && nc <= Math.max(gramMaxRows, 128)) return columnGramSvd(view, k, eigen);
  if (n <= gramMaxRows || !options.rng) return gramSvd(view, k, eigen, options.gram);
  return randomizedSvd(view, k, options.rng, options.oversample ?? 10, options.powerIterations ?? 3);
}

function gramSvd(view: MatrixView, k: number, eigen: NonNullable<SvdOptions['eigen']>, gram?: () => Float64Array): TopSvd {
  const n = view.rows.length;
  const { values, vectors } = eigen(gram ? gram() : gramRows(view), n);
  return finish(view, values, vectors, n, k, 'gram', null);
}

function columnGramSvd(view: MatrixView, k: number, eigen: NonNullable<SvdOptions['eigen']>): TopSvd {
  const n = view.rows.length;
  const nc = viewCols(view);
  const g = new Float64Array(nc * nc);
  const row = new Float64Array(nc);
  for (let r = 0; r < n; r++) {
    gatherRow(view, r, row);
    for (let i = 0; i < nc; i++) {
      const xi = row[i] as number;
      if (xi === 0) continue;
      for (let j = 0; j <= i; j++) g[i * nc + j] = (g[i * nc + j] as number) + xi * (row[j] as number);
    }
  }
  for (let i = 0; i < nc; i++) for (let j = 0; j < i; j++) g[j * nc + i] = g[i * nc + j] as number;
  const { values, vectors } = eigen(g, nc);
  const keep = numericalRank(values, Math.min(k, nc), n, nc);
  const sv = new Float64Array(keep);
  const v = new Float64Array(nc * keep);
  for (let j = 0; j < keep; j++) sv[j] = Math.sqrt(values[j] as number);
  for (let c = 0; c < nc; c++) for (let j = 0; j < keep; j++) v[c * keep + j] = vectors[c * nc + j] as number;
  const u = mulRight(view, v, keep);
  for (let r = 0; r < n; r++) for (let j = 0; j < keep; j++) u[r * keep + j] = (u[r * keep + j] as number) / (sv[j] as number);
  canonicalSigns(u, v, n, nc, keep);
  return { k: keep, singularValues: sv, u, v, method: 'gram' };
}

function randomizedSvd(view: MatrixView, k: number, rng: Rng, oversample: number, iterations: number): TopSvd {
  const n = view.rows.length;
  const nc = viewCols(view);
  const l = Math.min(n, nc, k + oversample);
  const omega = new Float64Array(nc * l);
  const draw = rng.fork('randomized-svd');
  for (let i = 0; i < omega.length; i++) omega[i] = draw.normal();
  // A 0/1 view (every response right or wrong) is read once into bit masks, and its eight
  // products add table rows (binary-products.ts); any other view streams its floats each time.
  const masks = binaryMasks(view);
  const right = (b: Float64Array) => (masks ? mulRightBits(masks, b, l) : mulRight(view, b, l));
  const leftT = (b: Float64Array) => (masks ? mulLeftTBits(masks, b, l) : mulLeftT(view, b, l));
  let q = right(omega);
  orthonormalizeColumns(q, n, l);
  for (let it = 0; it < iterations; it++) {
    const z = leftT(q);
    orthonormalizeColumns(z, nc, l);
    q = right(z);
    orthonormalizeColumns(q, n, l);
  }
  // B = Qᵀ·X (l × cols) is kept transposed as Bt = Xᵀ·Q; B·Bᵀ is l × l.
  const bt = leftT(q);
  const bbt = new Float64Array(l * l);
  for (let c = 0; c < nc; c++) {
    const o = c * l;
    for (let i = 0; i < l; i++) {
      const bi = bt[o + i] as number;
      if (bi === 0) continue;
      for (let j = 0; j <= i; j++) bbt[i * l + j] = (bbt[i * l + j] as number) + bi * (bt[o + j] as number);
    }
  }
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) bbt[j * l + i] = bbt[i * l + j] as number;
  const { values, vectors } = symmetricEigen(bbt, l);
  // U = Q·W (n × l), V = Bt·W·Σ⁻¹.
  const uFull = new Float64Array(n * l);
  for (let r = 0; r < n; r++)
    for (let j = 0; j < l; j++) {
      let s = 0;
      for (let p = 0; p < l; p++) s += (q[r * l + p] as number) * (vectors[p * l + j] as number);
      uFull[r * l + j] = s;
    }
  return finish(view, values, uFull, l, k, 'randomized', { bt, w: vectors });
}

function finish(
  view: MatrixView,
  values: Float64Array,
  uFull: Float64Array,
  width: number,
  k: number,
  method: TopSvd['method'],
  randomized: { bt: Float64Array; w: Float64Array } | null,
): TopSvd {
  const n = view.rows.length;
  const nc = viewCols(view);
  const keep = numericalRank(values, Math.min(k, width), n, nc);
  const sv = new Float64Array(keep);
  for (let j = 0; j < keep; j++) sv[j] = Math.sqrt(values[j] as number);
  const u = new Float64Array(n * keep);
  for (let r = 0; r < n; r++) for (let j = 0; j < keep; j++) u[r * keep + j] = uFull[r * width + j] as number;
  let v: Float64Array;
  if (randomized) {
    v = new Float64Array(nc * keep);
    const { bt, w } = randomized;
    for (let c = 0; c < nc; c++)
      for (let j = 0; j < keep; j++) {
        let s = 0;
        for (let p = 0; p < width; p++) s += (bt[c * width + p] as number) * (w[p * width + j] as number);
        v[c * keep + j] = s / (sv[j] as number);
      }
  } else {
    v = mulLeftT(view, u, keep);
    for (let c = 0; c < nc; c++) for (let j = 0; j < keep; j++) v[c * keep + j] = (v[c * keep + j] as number) / (sv[j] as number);
  }
  canonicalSigns(u, v, n, nc, keep);
  return { k: keep, singularValues: sv, u, v, method };
}

/**
 * Number of leading components that are real, from the descending eigenvalues λ = σ² of a Gram
 * matrix of an n × nc matrix. Forming X·Xᵀ (or XᵀX) and decomposing it are backward stable, so
 * each λ carries an absolute error of order (n + nc)·ε·λ_max: in σ terms a noise floor of
 * √((n + nc)·ε)·σ_max (≈ 1.5e-8·σ_max per unit of n + nc), far above the ε·σ_max floor of an SVD
 * of X itself. A component below it — e.g. the one a rank-deficient block (two models identical
 * on the selected items) leaves behind — has a meaningless direction, so it is dropped rather
 * than divided by a σ that is rounding noise. Exact zeros and negative round-off are dropped too.
 */
export function numericalRank(values: Float64Array, want: number, n: number, nc: number): number {
  const top = values[0] ?? 0;
  if (!(top > 0)) return 0;
  const floor = (n + nc) * Number.EPSILON * top;
  let keep = 0;
  while (keep < Math.min(want, values.length) && (values[keep] as number) > floor) keep++;
  return keep;
}

/** Sign convention (largest-|.| entry of each left vector positive) so outputs are reproducible. */
function canonicalSigns(u: Float64Array, v: Float64Array, n: number, nc: number, k: number): void {
  for (let j = 0; j < k; j++) {
    let big = 0;
    for (let r = 1; r < n; r++) if (Math.abs(u[r * k + j] as number) > Math.abs(u[big * k + j] as number)) big = r;
    if ((u[big * k + j] as number) >= 0) continue;
    for (let r = 0; r < n; r++) u[r * k + j] = -(u[r * k + j] as number);
    for (let c = 0; c < nc; c++) v[c * k + j] = -(v[c * k + j] as number);
  }
}
