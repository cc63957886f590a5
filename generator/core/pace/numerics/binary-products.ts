/**
 * X·B and Xᵀ·Q for a view of 0/1 columns (right-or-wrong scores; graded columns beside them run
 * on their floats, products.ts), as the randomized SVD (svd.ts) runs them: four products of each
 * kind over one view at 500 × 100,000. The view is read once into
 * bit masks (eight columns of a row, and eight rows of a column, per byte: 6 MiB each at that
 * size, against 400 MiB of float storage read on every pass), and the products add subset sums
 * from tables (the method of the "Four Russians"): for each group of eight rows of B (or Q) a
 * table of the 256 sums of its subsets, so each mask byte adds one precomputed row instead of
 * up to eight. At 500 × 100,000 × 20 that is about a third of the additions of products.ts
 * for X·B and a quarter for Xᵀ·Q.
 *
 * The sums group their terms differently from products.ts (a table entry pre-adds up to eight
 * terms), so results agree with the one-entry-at-a-time loops to rounding, not bit for bit. They
 * do not depend on the thread split: every chunk is a fixed range with outputs of its own, and
 * the partial sums of X·B are added in chunk order.
 */
import { sharedFloat64 } from '../../kernel/shared-memory.js';
import { runChunks, worthSharing } from './kernel-thread.js';
import { viewCols, type MatrixView } from './kernels.js';
import { addTerms, mulLeftT, mulRight } from './products.js';

/** The view's entries packed eight to a byte, two ways. */
export interface BinaryMasks {
  n: number;
  nc: number;
  /** Bytes per row of `rowMasks` (⌈nc / 8⌉): bit j of byte g of row r is x[r, 8g + j]. */
  colBytes: number;
  rowMasks: Uint8Array;
  /** Bytes per column of `colMasks` (⌈n / 8⌉): bit i of byte g of column c is x[8g + i, c]. */
  rowBytes: number;
  colMasks: Uint8Array;
  /**
   * View columns holding an entry other than 0 or 1 (graded scores), in order, as a view over
   * them: their bits are cleared from `rowMasks` and their products run on their floats
   * (products.ts); null when there are none.
   */
  graded: { cols: Int32Array; view: MatrixView } | null;
  /** Whether the masks lie on shared memory (the kernel worker reads them in place). */
  shared: boolean;
}

export interface MaskArgs {
  view: MatrixView;
  masks: BinaryMasks;
  /** Per view column, 1 when some entry is neither 0 nor 1 (chunks only ever write 1: a chunk run again writes the same). */
  graded: Uint8Array;
}

/** Rows per chunk of the row-mask pass. */
const maskRows = 32;

/** Chunk `chunk` of the row-mask pass: rows 32·chunk… of the view, eight columns per byte. */
export function binaryMasksChunk(args: MaskArgs): (chunk: number) => void {
  return (chunk) => maskRowGroup(args.view, args.masks, args.graded, chunk);
}

function maskRowGroup(v: MatrixView, m: BinaryMasks, graded: Uint8Array, chunk: number): void {
  const { data, stride, rows, cols } = v;
  const { nc, colBytes, rowMasks } = m;
  const r0 = chunk * maskRows;
  const r1 = Math.min(rows.length, r0 + maskRows);
  for (let r = r0; r < r1; r++) {
    const base = (rows[r] as number) * stride;
    const out = r * colBytes;
    if (cols) maskSubset(data, base, cols, nc, rowMasks, out, graded);
    else maskRange(data, base, nc, rowMasks, out, graded);
  }
}

/** One row's bytes over all columns: bit j of byte b is 1 when column 8b + j holds exactly 1. */
function maskRange(data: Float64Array, base: number, nc: number, rowMasks: Uint8Array, out: number, graded: Uint8Array): void {
  let b = 0;
  let c = 0;
  for (; c + 8 <= nc; c += 8, b++) {
    let byte = 0;
    for (let j = 0; j < 8; j++) {
      const x = data[base + c + j] as number;
      if (x === 1) byte |= 1 << j;
      else if (x !== 0) graded[c + j] = 1;
    }
    rowMasks[out + b] = byte;
  }
  if (c < nc) {
    let byte = 0;
    for (let j = 0; c + j < nc; j++) {
      const x = data[base + c + j] as number;
      if (x === 1) byte |= 1 << j;
      else if (x !== 0) graded[c + j] = 1;
    }
    rowMasks[out + b] = byte;
  }
}

/** As `maskRange`, for a view over a column subset. */
function maskSubset(data: Float64Array, base: number, cols: Int32Array, nc: number, rowMasks: Uint8Array, out: number, graded: Uint8Array): void {
  for (let c0 = 0; c0 < nc; c0 += 8) {
    let byte = 0;
    const c1 = Math.min(nc, c0 + 8);
    for (let c = c0; c < c1; c++) {
      const x = data[base + (cols[c] as number)] as number;
      if (x === 1) byte |= 1 << (c - c0);
      else if (x !== 0) graded[c] = 1;
    }
    rowMasks[out + (c0 >> 3)] = byte;
  }
}

/** Column bytes per chunk of the column-mask pass. */
const transposeBytes = 256;

export function columnMasksChunk(args: MaskArgs): (chunk: number) => void {
  return (chunk) => transposeRange(args.masks, chunk);
}

/**
 * Column masks from row masks, one 8 × 8 block of bits at a time: byte g of column 8·b + j
 * takes bit j of byte b of rows 8g…8g+7. Chunk `chunk` writes the columns of its bytes whole.
 */
function transposeRange(m: BinaryMasks, chunk: number): void {
  const { n, nc, colBytes, rowMasks, rowBytes, colMasks } = m;
  const b1 = Math.min(colBytes, (chunk + 1) * transposeBytes);
  for (let b = chunk * transposeBytes; b < b1; b++) {
    const width = Math.min(8, nc - 8 * b);
    for (let g = 0; g < rowBytes; g++) {
      const height = Math.min(8, n - 8 * g);
      let any = 0;
      for (let i = 0; i < height; i++) any |= rowMasks[(8 * g + i) * colBytes + b] as number;
      for (let j = 0; j < width; j++) {
        let byte = 0;
        if (any & (1 << j)) for (let i = 0; i < height; i++) byte |= (((rowMasks[(8 * g + i) * colBytes + b] as number) >> j) & 1) << i;
        colMasks[(8 * b + j) * rowBytes + g] = byte;
      }
    }
  }
}

/** Above this share of graded columns the masks save too little to pay for their pass. */
const maxGradedShare = 0.5;

/**
 * The view's masks (a view of 0/1 columns with some graded ones beside them, as benchmarks
 * scored right or wrong beside graded ones give), or null when more than half its columns
 * hold graded scores (the caller then uses products.ts throughout).
 */
export function binaryMasks(view: MatrixView): BinaryMasks | null {
  const n = view.rows.length;
  const nc = viewCols(view);
  const share = worthSharing(view.data, n * nc);
  const colBytes = Math.ceil(nc / 8);
  const rowBytes = Math.ceil(n / 8);
  const bytes = (length: number) => (share ? new Uint8Array(new SharedArrayBuffer(length)) : new Uint8Array(length));
  const masks: BinaryMasks = { n, nc, colBytes, rowMasks: bytes(n * colBytes), rowBytes, colMasks: bytes(nc * rowBytes), graded: null, shared: share };
  const graded = bytes(nc);
  const args: MaskArgs = { view, masks, graded };
  runChunks('binaryMasks', args, Math.ceil(n / maskRows), binaryMasksChunk(args), share);
  const cols: number[] = [];
  for (let c = 0; c < nc; c++) if (graded[c]) cols.push(c);
  if (cols.length > maxGradedShare * nc) return null;
  // A graded column's 1s are among its bits: cleared, so the masks hold the 0/1 columns alone.
  if (cols.length) clearColumns(masks, cols);
  runChunks('columnMasks', args, Math.ceil(colBytes / transposeBytes), columnMasksChunk(args), share);
  if (!cols.length) return masks;
  const gradedCols = Int32Array.from(cols);
  const absolute = view.cols ? Int32Array.from(cols, (c) => view.cols![c] as number) : gradedCols;
  masks.graded = { cols: gradedCols, view: { ...view, cols: absolute } };
  return masks;
}

/** Clears the bits of columns `cols` (ascending) in every row's mask bytes. */
function clearColumns(m: BinaryMasks, cols: number[]): void {
  const bytes: number[] = [];
  const keep: number[] = [];
  for (const c of cols) {
    const b = c >> 3;
    if (bytes[bytes.length - 1] !== b) {
      bytes.push(b);
      keep.push(0xff);
    }
    keep[keep.length - 1] = (keep[keep.length - 1] as number) & ~(1 << (c & 7));
  }
  const at = Int32Array.from(bytes);
  const and = Uint8Array.from(keep);
  const { n, colBytes, rowMasks } = m;
  for (let r = 0; r < n; r++) {
    const o = r * colBytes;
    for (let i = 0; i < at.length; i++) rowMasks[o + (at[i] as number)] = (rowMasks[o + (at[i] as number)] as number) & (and[i] as number);
  }
}

/** A product over masks with a dense factor. */
export interface BitProductArgs {
  masks: BinaryMasks;
  b: Float64Array;
  k: number;
  /** X·B: one n × k partial per range of column groups; Xᵀ·Q: the product itself. */
  out: Float64Array;
  /**
   * 256-entry subset-sum tables of groups of eight rows of the factor: X·B's scratch, a few
   * groups' tables per chunk; Xᵀ·Q's, every group's, built before the chunks run.
   */
  tables: Float64Array;
}

/**
 * Y = X·B splits into fixed ranges of column groups, each adding into its own n × k partial
 * (`out` holds them one after another); the caller adds them in range order.
 */
function rightRanges(colBytes: number): number {
  return Math.max(1, Math.min(16, Math.floor(colBytes / 64)));
}

/** Column groups whose tables X·B holds at once: together about 256 KiB, within a core's nearest caches. */
function tableGroups(k: number): number {
  return Math.max(1, Math.floor(32768 / (256 * Math.max(1, k))));
}

export function mulRightBitsChunk(args: BitProductArgs): (chunk: number) => void {
  const groups = tableGroups(args.k);
  const at = new Int32Array(groups);
  const ones = new Float64Array(groups).fill(1);
  return (chunk) => mulRightBitRange(args.masks, args.b, args.k, args.out, args.tables, chunk, at, ones);
}

/**
 * Range `chunk` of X·B's column groups into its own partial: a few groups' tables at a time,
 * then every row adds its table rows for those groups (held in registers by addTerms: the
 * multiplier is 1, exact).
 */
function mulRightBitRange(m: BinaryMasks, b: Float64Array, k: number, out: Float64Array, tables: Float64Array, chunk: number, at: Int32Array, ones: Float64Array): void {
  const { n, nc, colBytes, rowMasks } = m;
  const ranges = rightRanges(colBytes);
  const groups = at.length;
  const g0 = Math.floor((chunk * colBytes) / ranges);
  const g1 = Math.floor(((chunk + 1) * colBytes) / ranges);
  const part = chunk * n * k;
  const t = chunk * groups * 256 * k;
  out.fill(0, part, part + n * k);
  for (let gb = g0; gb < g1; gb += groups) {
    const ge = Math.min(g1, gb + groups);
    for (let g = gb; g < ge; g++) subsetTable(b, k, 8 * g, Math.min(8, nc - 8 * g), tables, t + (g - gb) * 256 * k);
    for (let r = 0; r < n; r++) {
      let nz = 0;
      const mo = r * colBytes;
      for (let g = gb; g < ge; g++) {
        const mask = rowMasks[mo + g] as number;
        if (mask !== 0) at[nz++] = t + ((g - gb) * 256 + mask) * k;
      }
      if (nz) addTerms(tables, k, out, part + r * k, nz, at, ones, 0, false);
    }
  }
}

/**
 * table[t + s·k + j] = Σ over the set bits i of s (lowest first) of m[(row0 + i)·k + j], for
 * s < 2^width: each entry is the entry without its highest bit plus that bit's row.
 */
function subsetTable(m: Float64Array, k: number, row0: number, width: number, table: Float64Array, t: number): void {
  table.fill(0, t, t + k);
  for (let i = 0; i < 8; i++) {
    const low = 1 << i;
    const src = (row0 + i) * k;
    for (let s = 0; s < low; s++) {
      const from = t + s * k;
      const to = t + (s | low) * k;
      if (i >= width) table.fill(0, to, to + k);
      else for (let j = 0; j < k; j++) table[to + j] = (table[from + j] as number) + (m[src + j] as number);
    }
  }
}

/** Y = X·B where B is (cols × k) row-major; returns rows × k. */
export function mulRightBits(masks: BinaryMasks, b: Float64Array, k: number): Float64Array {
  const { n, colBytes, shared } = masks;
  const ranges = rightRanges(colBytes);
  const alloc = (length: number) => (shared ? sharedFloat64(length) : new Float64Array(length));
  const args: BitProductArgs = { masks, b, k, out: alloc(ranges * n * k), tables: alloc(ranges * tableGroups(k) * 256 * k) };
  runChunks('mulRightBits', args, ranges, mulRightBitsChunk(args), shared);
  const y = new Float64Array(n * k);
  for (let c = 0; c < ranges; c++) {
    const part = args.out.subarray(c * n * k, (c + 1) * n * k);
    for (let i = 0; i < y.length; i++) y[i] = (y[i] as number) + (part[i] as number);
  }
  if (masks.graded) {
    // The graded columns' terms, from their floats, added last.
    const { cols, view } = masks.graded;
    const rows = new Float64Array(cols.length * k);
    cols.forEach((c, i) => rows.set(b.subarray(c * k, (c + 1) * k), i * k));
    const part = mulRight(view, rows, k);
    for (let i = 0; i < y.length; i++) y[i] = (y[i] as number) + (part[i] as number);
  }
  return y;
}

/** Columns per chunk of Xᵀ·Q (a chunk writes its columns' outputs whole). */
const leftColumns = 2048;

export function mulLeftTBitsChunk(args: BitProductArgs): (chunk: number) => void {
  const at = new Int32Array(args.masks.rowBytes);
  const ones = new Float64Array(args.masks.rowBytes).fill(1);
  return (chunk) => mulLeftTBitRange(args.masks, args.k, args.out, args.tables, chunk, at, ones);
}

/** Rows of Z = Xᵀ·Q for columns of chunk `chunk`: each the sum over row groups, in order, of its group's table row. */
function mulLeftTBitRange(m: BinaryMasks, k: number, out: Float64Array, tables: Float64Array, chunk: number, at: Int32Array, ones: Float64Array): void {
  const { nc, rowBytes, colMasks } = m;
  const c1 = Math.min(nc, (chunk + 1) * leftColumns);
  for (let c = chunk * leftColumns; c < c1; c++) {
    const mo = c * rowBytes;
    let nz = 0;
    for (let g = 0; g < rowBytes; g++) {
      const mask = colMasks[mo + g] as number;
      if (mask !== 0) at[nz++] = (g * 256 + mask) * k;
    }
    addTerms(tables, k, out, c * k, nz, at, ones, 0, true);
  }
}

/** Z = Xᵀ·Q where Q is (rows × k) row-major; returns cols × k. */
export function mulLeftTBits(masks: BinaryMasks, q: Float64Array, k: number): Float64Array {
  const { n, nc, rowBytes, shared } = masks;
  const alloc = (length: number) => (shared ? sharedFloat64(length) : new Float64Array(length));
  // One table per group of eight rows of Q, built once and read by every chunk.
  const tables = alloc(rowBytes * 256 * k);
  for (let g = 0; g < rowBytes; g++) subsetTable(q, k, 8 * g, Math.min(8, n - 8 * g), tables, g * 256 * k);
  const args: BitProductArgs = { masks, b: q, k, out: alloc(nc * k), tables };
  runChunks('mulLeftTBits', args, Math.ceil(nc / leftColumns), mulLeftTBitsChunk(args), shared);
  const z = shared ? args.out.slice() : args.out;
  if (masks.graded) {
    // The graded columns' rows of Z, from their floats (their masks are not read).
    const { cols, view } = masks.graded;
    const part = mulLeftT(view, q, k);
    cols.forEach((c, i) => z.set(part.subarray(i * k, (i + 1) * k), c * k));
  }
  return z;
}
