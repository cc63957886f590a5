/**
 * Products of a matrix view with a thin dense factor, Y = X·B and Z = Xᵀ·Q: the randomized
 * SVD's passes over the 100,000-wide instance axis (svd.ts) and the folds' column Spearman
 * (column-spearman-folds.ts). Each splits into chunks whose outputs do not overlap, run on the
 * calling thread and the kernel worker (kernel-thread.ts).
 *
 * Every output entry is the sum of x·b over the view's non-zero entries in column (or row)
 * order, starting from zero: the sum the one-entry-at-a-time loop gives, bit for bit. Blocking
 * (which entries are gathered together, how many outputs are held in registers at once, where
 * a partial sum is stored and picked up again) changes only which sums run side by side, never
 * the terms of one sum or their order, so the block sizes below are free to tune for speed.
 * A 0/1 entry needs no special path: 1·b is b exactly, and a zero is skipped.
 */
import { sharedFloat64 } from '../../kernel/shared-memory.js';
import { runChunks, worthSharing } from './kernel-thread.js';
import { viewCols, type MatrixView } from './kernels.js';

/** A product of the view with a dense (cols × k or rows × k) row-major matrix, written into `out`. */
export interface ProductArgs {
  view: MatrixView;
  b: Float64Array;
  k: number;
  out: Float64Array;
}

/** Rows per chunk of `mulRight`: each chunk reads the whole of B once, block by block. */
const mulRightRows = 32;

/** Columns per block of `mulRight`: the block's slice of B (≈ 40 KiB) stays in the nearest caches while the chunk's rows add to it. */
function rightBlock(k: number): number {
  return Math.max(32, Math.floor(5120 / Math.max(1, k)));
}

/** Columns per chunk of `mulLeftT` (one chunk writes those columns' outputs whole). */
function leftChunk(k: number): number {
  return Math.max(64, Math.floor(32768 / Math.max(1, k)));
}

/** Columns whose non-zero entries `mulLeftT` gathers at once (column by column, in row order). */
const mulLeftTColumns = 64;

/**
 * Chunk `chunk` of Y = X·B: a group of rows, over column blocks whose slice of B stays in cache
 * (at 100,000 columns B is 16 MiB, read once per row group instead of once per row). Each entry
 * accumulates over the columns in order from zero, carried from block to block in `out`.
 */
export function mulRightChunk(args: ProductArgs): (chunk: number) => void {
  // The block's non-zero entries of one row: gathered once, then read for every group of outputs.
  const at = new Int32Array(rightBlock(args.k));
  const xs = new Float64Array(at.length);
  return (chunk) => mulRightRowGroup(args.view, args.b, args.k, args.out, chunk, at, xs);
}

// Plain functions of their arguments: V8 keeps them in registers, where a closure's captured
// variables (or an object's fields) are reloaded on every use in the inner loop.
function mulRightRowGroup(v: MatrixView, b: Float64Array, k: number, out: Float64Array, chunk: number, at: Int32Array, xs: Float64Array): void {
  const { data, stride, rows, cols } = v;
  const nc = viewCols(v);
  const block = rightBlock(k);
  const r0 = chunk * mulRightRows;
  const r1 = Math.min(rows.length, r0 + mulRightRows);
  out.fill(0, r0 * k, r1 * k);
  for (let c0 = 0; c0 < nc; c0 += block) {
    const c1 = Math.min(nc, c0 + block);
    for (let r = r0; r < r1; r++) {
      const base = (rows[r] as number) * stride;
      const nz = cols ? gatherSubset(data, base, cols, c0, c1, k, at, xs) : gatherRange(data, base, c0, c1, k, at, xs);
      addTerms(b, k, out, r * k, nz, at, xs, 0, false);
    }
  }
}

/** Non-zero entries of columns c0…c1−1 (all columns view) of the row at `base`: offsets c·k into B, and values. */
function gatherRange(data: Float64Array, base: number, c0: number, c1: number, k: number, at: Int32Array, xs: Float64Array): number {
  let nz = 0;
  for (let c = c0; c < c1; c++) {
    const x = data[base + c] as number;
    if (x === 0) continue;
    at[nz] = c * k;
    xs[nz++] = x;
  }
  return nz;
}

/** As `gatherRange`, for a view over a column subset. */
function gatherSubset(data: Float64Array, base: number, cols: Int32Array, c0: number, c1: number, k: number, at: Int32Array, xs: Float64Array): number {
  let nz = 0;
  for (let c = c0; c < c1; c++) {
    const x = data[base + (cols[c] as number)] as number;
    if (x === 0) continue;
    at[nz] = c * k;
    xs[nz++] = x;
  }
  return nz;
}

/**
 * out[o + j] (+)= Σ_t xs[t]·m[at[t] + j] for j < k, over t = first…last−1 in order: from the
 * value in `out` (`fresh` false) or from zero. Eight outputs are held in registers at once (one
 * read of xs[t] and at[t] serves eight sums), then four, then one.
 */
export function addTerms(m: Float64Array, k: number, out: Float64Array, o: number, last: number, at: Int32Array, xs: Float64Array, first: number, fresh: boolean): void {
  let j = 0;
  for (; j + 8 <= k; j += 8) {
    let s0 = fresh ? 0 : (out[o + j] as number);
    let s1 = fresh ? 0 : (out[o + j + 1] as number);
    let s2 = fresh ? 0 : (out[o + j + 2] as number);
    let s3 = fresh ? 0 : (out[o + j + 3] as number);
    let s4 = fresh ? 0 : (out[o + j + 4] as number);
    let s5 = fresh ? 0 : (out[o + j + 5] as number);
    let s6 = fresh ? 0 : (out[o + j + 6] as number);
    let s7 = fresh ? 0 : (out[o + j + 7] as number);
    for (let t = first; t < last; t++) {
      const x = xs[t] as number;
      const mo = (at[t] as number) + j;
      s0 += x * (m[mo] as number);
      s1 += x * (m[mo + 1] as number);
      s2 += x * (m[mo + 2] as number);
      s3 += x * (m[mo + 3] as number);
      s4 += x * (m[mo + 4] as number);
      s5 += x * (m[mo + 5] as number);
      s6 += x * (m[mo + 6] as number);
      s7 += x * (m[mo + 7] as number);
    }
    out[o + j] = s0;
    out[o + j + 1] = s1;
    out[o + j + 2] = s2;
    out[o + j + 3] = s3;
    out[o + j + 4] = s4;
    out[o + j + 5] = s5;
    out[o + j + 6] = s6;
    out[o + j + 7] = s7;
  }
  for (; j + 4 <= k; j += 4) {
    let s0 = fresh ? 0 : (out[o + j] as number);
    let s1 = fresh ? 0 : (out[o + j + 1] as number);
    let s2 = fresh ? 0 : (out[o + j + 2] as number);
    let s3 = fresh ? 0 : (out[o + j + 3] as number);
    for (let t = first; t < last; t++) {
      const x = xs[t] as number;
      const mo = (at[t] as number) + j;
      s0 += x * (m[mo] as number);
      s1 += x * (m[mo + 1] as number);
      s2 += x * (m[mo + 2] as number);
      s3 += x * (m[mo + 3] as number);
    }
    out[o + j] = s0;
    out[o + j + 1] = s1;
    out[o + j + 2] = s2;
    out[o + j + 3] = s3;
  }
  for (; j < k; j++) {
    let s = fresh ? 0 : (out[o + j] as number);
    for (let t = first; t < last; t++) s += (xs[t] as number) * (m[(at[t] as number) + j] as number);
    out[o + j] = s;
  }
}

/**
 * Chunk `chunk` of Z = Xᵀ·Q: a block of columns. The non-zero entries of a few columns at a
 * time are gathered row by row (one read of each matrix row's slice), then each output entry
 * is summed in registers over its column's entries in row order from zero: the sum of one pass
 * per row, bit for bit.
 */
export function mulLeftTChunk(args: ProductArgs): (chunk: number) => void {
  const n = args.view.rows.length;
  const count = new Int32Array(mulLeftTColumns);
  const at = new Int32Array(mulLeftTColumns * n);
  const xs = new Float64Array(mulLeftTColumns * n);
  return (chunk) => mulLeftTBlock(args.view, args.b, args.k, args.out, chunk, count, at, xs);
}

function mulLeftTBlock(v: MatrixView, q: Float64Array, k: number, out: Float64Array, chunk: number, count: Int32Array, at: Int32Array, xs: Float64Array): void {
  const { data, stride, rows, cols } = v;
  const n = rows.length;
  const nc = viewCols(v);
  const block = leftChunk(k);
  const end = Math.min(nc, (chunk + 1) * block);
  for (let c0 = chunk * block; c0 < end; c0 += mulLeftTColumns) {
    const w = Math.min(mulLeftTColumns, end - c0);
    count.fill(0);
    for (let r = 0; r < n; r++) {
      const base = (rows[r] as number) * stride;
      if (cols) scatterSubset(data, base, cols, c0, w, n, r * k, count, at, xs);
      else scatterRange(data, base + c0, w, n, r * k, count, at, xs);
    }
    for (let i = 0; i < w; i++) addTerms(q, k, out, (c0 + i) * k, i * n + (count[i] as number), at, xs, i * n, true);
  }
}

/** Appends the row's non-zero entries among the w columns from `start` to their columns' lists (column i's list at i·n). */
function scatterRange(data: Float64Array, start: number, w: number, n: number, qo: number, count: Int32Array, at: Int32Array, xs: Float64Array): void {
  for (let i = 0; i < w; i++) {
    const x = data[start + i] as number;
    if (x === 0) continue;
    const slot = i * n + (count[i] as number);
    count[i] = (count[i] as number) + 1;
    at[slot] = qo;
    xs[slot] = x;
  }
}

/** As `scatterRange`, for view columns c0…c0+w−1 of a column subset. */
function scatterSubset(data: Float64Array, base: number, cols: Int32Array, c0: number, w: number, n: number, qo: number, count: Int32Array, at: Int32Array, xs: Float64Array): void {
  for (let i = 0; i < w; i++) {
    const x = data[base + (cols[c0 + i] as number)] as number;
    if (x === 0) continue;
    const slot = i * n + (count[i] as number);
    count[i] = (count[i] as number) + 1;
    at[slot] = qo;
    xs[slot] = x;
  }
}

/** Output storage: shared with the kernel thread when the product is split, an ordinary array otherwise. */
function productOutput(length: number, share: boolean): Float64Array {
  return share ? sharedFloat64(length) : new Float64Array(length);
}

/** Y = X·B where B is (cols × k) row-major; returns rows × k. */
export function mulRight(v: MatrixView, b: Float64Array, k: number): Float64Array {
  const n = v.rows.length;
  const share = worthSharing(v.data, n * viewCols(v));
  const args: ProductArgs = { view: v, b, k, out: productOutput(n * k, share) };
  runChunks('mulRight', args, Math.ceil(n / mulRightRows), mulRightChunk(args), share);
  // Callers may hand the result to other workers' transfer lists, which take no shared memory.
  return share ? args.out.slice() : args.out;
}

/** Z = Xᵀ·Q where Q is (rows × k) row-major; returns cols × k. */
export function mulLeftT(v: MatrixView, q: Float64Array, k: number): Float64Array {
  const nc = viewCols(v);
  const share = worthSharing(v.data, v.rows.length * nc);
  const args: ProductArgs = { view: v, b: q, k, out: productOutput(nc * k, share) };
  runChunks('mulLeftT', args, Math.ceil(nc / leftChunk(k)), mulLeftTChunk(args), share);
  return share ? args.out.slice() : args.out;
}
