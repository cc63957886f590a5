/**
 * Typed-array kernels over a row/column view of a row-major matrix. The instance axis can be
 * 100k wide, so every kernel streams over it once per pass and never materialises a copy
 * of the selected sub-matrix.
 */
import { sharedFloat64 } from '../../kernel/shared-memory.js';
import { runChunks, worthSharing } from './kernel-thread.js';

export interface MatrixView {
  /** Row-major storage of the full matrix. */
  data: Float64Array;
  /** Number of columns of the full matrix (row stride). */
  stride: number;
  /** Rows of the full matrix that belong to the view, in view order. */
  rows: Int32Array;
  /** Columns of the full matrix that belong to the view; null = all columns, in order. */
  cols: Int32Array | null;
}

export function viewCols(v: MatrixView): number {
  return v.cols ? v.cols.length : v.stride;
}

export function range(n: number): Int32Array {
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

/** Copies row `r` of the view (view column order) into `out`. */
export function gatherRow(v: MatrixView, r: number, out: Float64Array): Float64Array {
  const base = (v.rows[r] as number) * v.stride;
  const cols = v.cols;
  if (cols) for (let c = 0; c < cols.length; c++) out[c] = v.data[base + (cols[c] as number)] as number;
  else out.set(v.data.subarray(base, base + v.stride));
  return out;
}

/** Copies column `c` of the view (view row order) into `out`. */
export function gatherCol(v: MatrixView, c: number, out: Float64Array): Float64Array {
  const col = v.cols ? (v.cols[c] as number) : c;
  for (let r = 0; r < v.rows.length; r++) out[r] = v.data[(v.rows[r] as number) * v.stride + col] as number;
  return out;
}

/** Row-major dense copy of a (small) view. */
export function denseCopy(v: MatrixView): Float64Array {
  const nc = viewCols(v);
  const out = new Float64Array(v.rows.length * nc);
  for (let r = 0; r < v.rows.length; r++) gatherRow(v, r, out.subarray(r * nc, (r + 1) * nc));
  return out;
}

/** Gram matrix X·Xᵀ (rows × rows), accumulated over column blocks so a column subset is gathered once. */
export function gramRows(v: MatrixView): Float64Array {
  const n = v.rows.length;
  const nc = viewCols(v);
  const g = new Float64Array(n * n);
  const block = Math.max(256, Math.min(nc, Math.floor(4_000_000 / Math.max(1, n))));
  const buf = new Float64Array(n * block);
  for (let c0 = 0; c0 < nc; c0 += block) {
    const w = Math.min(block, nc - c0);
    for (let r = 0; r < n; r++) {
      const base = (v.rows[r] as number) * v.stride;
      const dst = r * w;
      if (v.cols) for (let c = 0; c < w; c++) buf[dst + c] = v.data[base + (v.cols[c0 + c] as number)] as number;
      else buf.set(v.data.subarray(base + c0, base + c0 + w), dst);
    }
    // Four entries of a row at once: four independent sums, each over the block's columns in
    // order, so every entry is the sum the one-at-a-time loop gives (bit-identical).
    for (let i = 0; i < n; i++) {
      const oi = i * w;
      let j = 0;
      for (; j + 3 <= i; j += 4) {
        const o0 = j * w;
        const o1 = o0 + w;
        const o2 = o1 + w;
        const o3 = o2 + w;
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let c = 0; c < w; c++) {
          const x = buf[oi + c] as number;
          s0 += x * (buf[o0 + c] as number);
          s1 += x * (buf[o1 + c] as number);
          s2 += x * (buf[o2 + c] as number);
          s3 += x * (buf[o3 + c] as number);
        }
        g[i * n + j] = (g[i * n + j] as number) + s0;
        g[i * n + j + 1] = (g[i * n + j + 1] as number) + s1;
        g[i * n + j + 2] = (g[i * n + j + 2] as number) + s2;
        g[i * n + j + 3] = (g[i * n + j + 3] as number) + s3;
      }
      for (; j <= i; j++) {
        const oj = j * w;
        let s = 0;
        for (let c = 0; c < w; c++) s += (buf[oi + c] as number) * (buf[oj + c] as number);
        g[i * n + j] = (g[i * n + j] as number) + s;
      }
    }
  }
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) g[j * n + i] = g[i * n + j] as number;
  return g;
}

/** A product of the view with a dense (cols × k or rows × k) row-major matrix, written into `out`. */
export interface ProductArgs {
  view: MatrixView;
  b: Float64Array;
  k: number;
  out: Float64Array;
}

/** Rows per chunk of `mulRight`: each chunk reads the whole of B once, block by block. */
const mulRightRows = 32;

/** Columns per block: the block's slice of B (or of the output) stays in cache (256 KiB) while rows add to it. */
function productBlock(k: number): number {
  return Math.max(64, Math.floor(32768 / Math.max(1, k)));
}

/**
 * Chunk `chunk` of Y = X·B: a group of rows, over column blocks whose slice of B stays in cache
 * (at 100,000 columns B is 16 MiB, read once per row group instead of once per row). Each entry
 * still accumulates over the columns in order from zero, so it is the one-row-at-a-time sum.
 */
export function mulRightChunk(args: ProductArgs): (chunk: number) => void {
  // The block's non-zero entries of one row: gathered once, then read for every group of four outputs.
  const at = new Int32Array(productBlock(args.k));
  const xs = new Float64Array(at.length);
  return (chunk) => mulRightRowGroup(args.view, args.b, args.k, args.out, chunk, at, xs);
}

// A plain function of its arguments (see mulLeftTBlock).
function mulRightRowGroup(v: MatrixView, b: Float64Array, k: number, out: Float64Array, chunk: number, at: Int32Array, xs: Float64Array): void {
  const n = v.rows.length;
  const nc = viewCols(v);
  const block = productBlock(k);
  const r0 = chunk * mulRightRows;
  const r1 = Math.min(n, r0 + mulRightRows);
  out.fill(0, r0 * k, r1 * k);
  for (let c0 = 0; c0 < nc; c0 += block) {
    const c1 = Math.min(nc, c0 + block);
    for (let r = r0; r < r1; r++) {
      const base = (v.rows[r] as number) * v.stride;
      let nz = 0;
      for (let c = c0; c < c1; c++) {
        const x = v.data[base + (v.cols ? (v.cols[c] as number) : c)] as number;
        if (x === 0) continue;
        at[nz] = c * k;
        xs[nz++] = x;
      }
      const o = r * k;
      // Four outputs held in registers over the block: each still adds its terms in column order.
      let j = 0;
      for (; j + 4 <= k; j += 4) {
        let s0 = out[o + j] as number;
        let s1 = out[o + j + 1] as number;
        let s2 = out[o + j + 2] as number;
        let s3 = out[o + j + 3] as number;
        for (let t = 0; t < nz; t++) {
          const x = xs[t] as number;
          const bo = (at[t] as number) + j;
          s0 += x * (b[bo] as number);
          s1 += x * (b[bo + 1] as number);
          s2 += x * (b[bo + 2] as number);
          s3 += x * (b[bo + 3] as number);
        }
        out[o + j] = s0;
        out[o + j + 1] = s1;
        out[o + j + 2] = s2;
        out[o + j + 3] = s3;
      }
      for (; j < k; j++) {
        let s = out[o + j] as number;
        for (let t = 0; t < nz; t++) s += (xs[t] as number) * (b[(at[t] as number) + j] as number);
        out[o + j] = s;
      }
    }
  }
}

/** Columns whose non-zero entries `mulLeftT` gathers at once (column by column, in row order). */
const mulLeftTColumns = 64;

/**
 * Chunk `chunk` of Z = Xᵀ·Q: a block of columns. The non-zero entries of a few columns at a
 * time are gathered row by row (one read of each matrix row's slice), then each output entry
 * is summed in registers, four at a time, over its column's entries in row order from zero:
 * the sum of one pass per row, bit for bit.
 */
export function mulLeftTChunk(args: ProductArgs): (chunk: number) => void {
  const n = args.view.rows.length;
  const count = new Int32Array(mulLeftTColumns);
  const at = new Int32Array(mulLeftTColumns * n);
  const xs = new Float64Array(mulLeftTColumns * n);
  return (chunk) => mulLeftTBlock(args.view, args.b, args.k, args.out, chunk, count, at, xs);
}

// A plain function of its arguments: V8 keeps them in registers, where a closure's captured
// variables are reloaded from its context on every use in the inner loop.
function mulLeftTBlock(v: MatrixView, q: Float64Array, k: number, out: Float64Array, chunk: number, count: Int32Array, at: Int32Array, xs: Float64Array): void {
  const n = v.rows.length;
  const nc = viewCols(v);
  const block = productBlock(k);
  const end = Math.min(nc, (chunk + 1) * block);
  for (let c0 = chunk * block; c0 < end; c0 += mulLeftTColumns) {
    const w = Math.min(mulLeftTColumns, end - c0);
    count.fill(0);
    for (let r = 0; r < n; r++) {
      const base = (v.rows[r] as number) * v.stride;
      for (let i = 0; i < w; i++) {
        const x = v.data[base + (v.cols ? (v.cols[c0 + i] as number) : c0 + i)] as number;
        if (x === 0) continue;
        const slot = i * n + (count[i] as number);
        count[i] = (count[i] as number) + 1;
        at[slot] = r * k;
        xs[slot] = x;
      }
    }
    for (let i = 0; i < w; i++) {
      const first = i * n;
      const last = first + (count[i] as number);
      const o = (c0 + i) * k;
      let j = 0;
      for (; j + 4 <= k; j += 4) {
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let s3 = 0;
        for (let t = first; t < last; t++) {
          const x = xs[t] as number;
          const qo = (at[t] as number) + j;
          s0 += x * (q[qo] as number);
          s1 += x * (q[qo + 1] as number);
          s2 += x * (q[qo + 2] as number);
          s3 += x * (q[qo + 3] as number);
        }
        out[o + j] = s0;
        out[o + j + 1] = s1;
        out[o + j + 2] = s2;
        out[o + j + 3] = s3;
      }
      for (; j < k; j++) {
        let s = 0;
        for (let t = first; t < last; t++) s += (xs[t] as number) * (q[(at[t] as number) + j] as number);
        out[o + j] = s;
      }
    }
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
  runChunks('mulLeftT', args, Math.ceil(nc / productBlock(k)), mulLeftTChunk(args), share);
  return share ? args.out.slice() : args.out;
}

/**
 * In-place modified Gram–Schmidt on the k columns of a (m × k) row-major matrix; returns kept
 * columns. The columns are worked on as contiguous copies (a strided column of a 100,000 × 20
 * matrix touches a new cache line per entry); the arithmetic and its order are unchanged.
 */
export function orthonormalizeColumns(a: Float64Array, m: number, k: number): number {
  const t = new Float64Array(m * k);
  for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) t[j * m + i] = a[i * k + j] as number;
  let kept = 0;
  for (let j = 0; j < k; j++) {
    const oj = j * m;
    for (let pass = 0; pass < 2; pass++) {
      for (let p = 0; p < j; p++) {
        const op = p * m;
        let dot = 0;
        for (let i = 0; i < m; i++) dot += (t[op + i] as number) * (t[oj + i] as number);
        if (dot !== 0) for (let i = 0; i < m; i++) t[oj + i] = (t[oj + i] as number) - dot * (t[op + i] as number);
      }
    }
    let norm = 0;
    for (let i = 0; i < m; i++) norm += (t[oj + i] as number) ** 2;
    norm = Math.sqrt(norm);
    // A numerically dependent direction becomes zero rather than amplified noise.
    if (norm < 1e-10) {
      t.fill(0, oj, oj + m);
      continue;
    }
    for (let i = 0; i < m; i++) t[oj + i] = (t[oj + i] as number) / norm;
    kept++;
  }
  for (let i = 0; i < m; i++) for (let j = 0; j < k; j++) a[i * k + j] = t[j * m + i] as number;
  return kept;
}

export function mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] as number;
  return a.length ? s / a.length : NaN;
}

export function minMax(a: ArrayLike<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return [lo, hi];
}
