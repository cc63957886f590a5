/**
 * The reference products the kernel tests compare against (kernel-chunks, products): one entry
 * at a time, in row then column order, zeros skipped, so an exact kernel matches them bit for bit.
 */
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
