/**
 * Embeddings of models from their scores on a selected instance set. Both are linear:
 * a model's coordinates are the least-squares fit of its selected scores on a basis
 * (x ≈ basis·u), so a checkpoint that lacks some instances is placed from the ones it has.
 *  - local (H): SVD of the training models' scores on H; basis = V_k·Σ_k, hence u = x·V_k·Σ_k⁻¹
 *    (PACE's projection of the held-out model).
 *  - global (D-pt): basis = rows D of the global right singular vectors; u = x·pinv(V_D)ᵀ.
 */
import { leastSquares, pinvSym } from '../numerics/linalg.js';
import { topSvd } from '../numerics/svd.js';
import type { MatrixView } from '../numerics/kernels.js';

export interface LinearEmbedding {
  /** View columns the embedding reads, in basis row order. */
  cols: Int32Array;
  k: number;
  /** |cols| × k. */
  basis: Float64Array;
  /** |cols| × k: u = x·proj for a fully observed row (= basis·(basisᵀbasis)⁺). */
  proj: Float64Array;
}

/**
 * `trainRows` and `cols` are view indices (pool rows, selectable columns). Both are mapped
 * through the view to rows/columns of the full matrix: read unmapped, pool row r would be
 * matrix row r — a model outside the pool, or the held-out model itself.
 */
export function localEmbedding(view: MatrixView, trainRows: Int32Array, cols: Int32Array, ncH: number): LinearEmbedding {
  const sub: MatrixView = { data: view.data, stride: view.stride, rows: mapRows(view, trainRows), cols: mapCols(view, cols) };
  const svd = topSvd(sub, Math.min(ncH, trainRows.length, cols.length));
  const k = svd.k;
  const basis = new Float64Array(cols.length * k);
  const proj = new Float64Array(cols.length * k);
  for (let s = 0; s < cols.length; s++)
    for (let j = 0; j < k; j++) {
      const v = svd.v[s * k + j] as number;
      const sigma = svd.singularValues[j] as number;
      basis[s * k + j] = v * sigma;
      proj[s * k + j] = v / sigma;
    }
  return { cols, k, basis, proj };
}

/** `v` is the global right-singular-vector matrix over view columns (cols × vk). */
export function globalEmbedding(v: Float64Array, vk: number, cols: Int32Array, ncD: number): LinearEmbedding {
  const k = Math.min(ncD, vk);
  const basis = new Float64Array(cols.length * k);
  for (let s = 0; s < cols.length; s++) for (let j = 0; j < k; j++) basis[s * k + j] = v[(cols[s] as number) * vk + j] as number;
  return { cols, k, basis, proj: projectionFor(basis, cols.length, k) };
}

function projectionFor(basis: Float64Array, m: number, k: number): Float64Array {
  const btb = new Float64Array(k * k);
  for (let s = 0; s < m; s++)
    for (let p = 0; p < k; p++) for (let q = 0; q < k; q++) btb[p * k + q] = (btb[p * k + q] as number) + (basis[s * k + p] as number) * (basis[s * k + q] as number);
  // proj = basis·(BᵀB)⁺ from one decomposition of BᵀB (the pseudo-inverse is symmetric).
  const inv = pinvSym(btb, k);
  const proj = new Float64Array(m * k);
  for (let s = 0; s < m; s++)
    for (let j = 0; j < k; j++) {
      let acc = 0;
      for (let p = 0; p < k; p++) acc += (basis[s * k + p] as number) * (inv[p * k + j] as number);
      proj[s * k + j] = acc;
    }
  return proj;
}

function mapRows(view: MatrixView, rows: Int32Array): Int32Array {
  return Int32Array.from(rows, (r) => view.rows[r] as number);
}

function mapCols(view: MatrixView, cols: Int32Array): Int32Array {
  if (!view.cols) return cols;
  return Int32Array.from(cols, (c) => view.cols![c] as number);
}

/** Coordinates of one model row of the view (all selected instances observed). */
export function embedViewRow(view: MatrixView, row: number, e: LinearEmbedding): Float64Array {
  const out = new Float64Array(e.k);
  const base = (view.rows[row] as number) * view.stride;
  for (let s = 0; s < e.cols.length; s++) {
    const c = e.cols[s] as number;
    const x = view.data[base + (view.cols ? (view.cols[c] as number) : c)] as number;
    if (x === 0) continue;
    for (let j = 0; j < e.k; j++) out[j] = (out[j] as number) + x * (e.proj[s * e.k + j] as number);
  }
  return out;
}

export function embedViewRows(view: MatrixView, rows: Int32Array, e: LinearEmbedding): Float64Array {
  const out = new Float64Array(rows.length * e.k);
  rows.forEach((r, i) => out.set(embedViewRow(view, r, e), i * e.k));
  return out;
}

/**
 * Coordinates from a partially observed score vector (`x[s]` for basis row s; NaN = missing):
 * least squares on the observed rows of the basis. Returns null when fewer rows than dimensions.
 */
export function embedPartial(x: Float64Array, e: LinearEmbedding): Float64Array | null {
  const obs: number[] = [];
  for (let s = 0; s < x.length; s++) if (!Number.isNaN(x[s] as number)) obs.push(s);
  if (obs.length === x.length) {
    const out = new Float64Array(e.k);
    for (let s = 0; s < x.length; s++) for (let j = 0; j < e.k; j++) out[j] = (out[j] as number) + (x[s] as number) * (e.proj[s * e.k + j] as number);
    return out;
  }
  if (obs.length < e.k) return null;
  const a = new Float64Array(obs.length * e.k);
  const b = new Float64Array(obs.length);
  obs.forEach((s, i) => {
    for (let j = 0; j < e.k; j++) a[i * e.k + j] = e.basis[s * e.k + j] as number;
    b[i] = x[s] as number;
  });
  return leastSquares(a, obs.length, e.k, b);
}
