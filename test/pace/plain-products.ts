/**
 * The reference products the kernel tests compare against (kernel-chunks, products): one entry
 * at a time, in row then column order, zeros skipped, so an exact kernel matches them bit for bit.
 */
import { Rng } from '../../generator/core/kernel/rng.js';
import { viewCols, type MatrixView } from '../../generator/core/pace/numerics/kernels.js';

function cell(v: MatrixView, r: number, c: number): number {
  return v.data[(v.rows[r] as number) * v.stride + (v.cols ? (v.cols[c] as number) : c)] as number;
}

/** X·B for the view X (rows × view columns) and B (view columns × k), row-major. */
export function plainMulRight(v: MatrixView, b: Float64Array, k: number): Float64Array {
  const out = new Float64Array(v.rows.length * k);
  for (let r = 0; r < v.rows.length; r++)
    for (let c = 0; c < viewCols(v); c++) {
      const x = cell(v, r, c);
      if (x === 0) continue;
      for (let j = 0; j < k; j++) out[r * k + j] = (out[r * k + j] as number) + x * (b[c * k + j] as number);
    }
  return out;
}

/** Xᵀ·Q for the view X and Q (rows × k), row-major. */
export function plainMulLeftT(v: MatrixView, q: Float64Array, k: number): Float64Array {
  const out = new Float64Array(viewCols(v) * k);
  for (let r = 0; r < v.rows.length; r++)
    for (let c = 0; c < viewCols(v); c++) {
      const x = cell(v, r, c);
      if (x === 0) continue;
      for (let j = 0; j < k; j++) out[c * k + j] = (out[c * k + j] as number) + x * (q[r * k + j] as number);
    }
  return out;
}

/**
 * Three views of a rows × cols matrix where an index mistake would show: all of it, its rows
 * reversed with every fifth left out, and those rows over a shuffled 70% of the columns (the
 * view's column order, not the matrix's, sets the sum order).
 */
export function productViews(data: Float64Array, n: number, cols: number, seed: string): MatrixView[] {
  const rng = new Rng(seed);
  const rows = Int32Array.from({ length: n }, (_, i) => n - 1 - i).filter((r) => r % 5 !== 2);
  const subset = Int32Array.from({ length: cols }, (_, i) => i).filter(() => rng.next() < 0.7);
  for (let i = subset.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [subset[i], subset[j]] = [subset[j] as number, subset[i] as number];
  }
  return [
    { data, stride: cols, rows: Int32Array.from({ length: n }, (_, i) => i), cols: null },
    { data, stride: cols, rows, cols: null },
    { data, stride: cols, rows, cols: subset },
  ];
}
