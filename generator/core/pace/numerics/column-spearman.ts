/**
 * Spearman ρ of every view column with a target: the hot loop of selection (one call per fold
 * over ~10⁵ columns). 0/1 columns take a one-pass sum path, the others a per-column ranking;
 * both split into column chunks that the kernel thread can share (kernel-thread.ts).
 */
import { sharedFloat64 } from '../../kernel/shared-memory.js';
import { viewCols, type MatrixView } from './kernels.js';
import { runChunks, worthSharing } from './kernel-thread.js';
import { averageRanks } from './rank.js';

/**
 * Spearman ρ of every view column with `y` (one value per view row). Columns that are constant
 * over the view rows give NaN, as scipy does. Small-n ranking uses insertion sort on a
 * reused buffer: this is the hot loop of selection (one call per fold over ~10⁵ columns).
 */
export function columnSpearman(v: MatrixView, y: ArrayLike<number>): Float64Array {
  const nc = viewCols(v);
  const { cy, syy, my } = centredRanks(y);
  const out = new Float64Array(nc);
  const rest = binaryColumnSpearman(v, cy, syy, my, out);
  if (rest.length === 0) return out;
  const sub = rankedColumns({ ...v, cols: Int32Array.from(rest, (c) => (v.cols ? (v.cols[c] as number) : c)) }, cy, syy, my);
  rest.forEach((c, i) => (out[c] = sub[i] as number));
  return out;
}

/** The target's average ranks centred on their mean (n + 1)/2, and their sum of squares. */
export function centredRanks(y: ArrayLike<number>): { cy: Float64Array; syy: number; my: number } {
  const n = y.length;
  const ry = averageRanks(y);
  const my = (n + 1) / 2;
  let syy = 0;
  const cy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    cy[i] = (ry[i] as number) - my;
    syy += (cy[i] as number) ** 2;
  }
  return { cy, syy, my };
}

export interface BinarySumsArgs {
  view: MatrixView;
  cy: Float64Array;
  /** Per view column: count of ones, and the sum of `cy` over them. */
  ones: Float64Array;
  s1: Float64Array;
}

/** Columns per chunk of the 0/1 sums: two 32 KiB slices of the sums stay in cache over the rows. */
const binarySumsWidth = 4096;

/**
 * Chunk `chunk` of the 0/1 columns' sums: a block of columns, row by row; each sum runs over
 * the rows in order, as in one pass over whole rows.
 */
export function binarySumsChunk({ view: v, cy, ones, s1 }: BinarySumsArgs): (chunk: number) => void {
  const n = v.rows.length;
  const nc = viewCols(v);
  const cols = v.cols;
  return (chunk) => {
    const c0 = chunk * binarySumsWidth;
    const c1 = Math.min(nc, c0 + binarySumsWidth);
    ones.fill(0, c0, c1);
    s1.fill(0, c0, c1);
    for (let i = 0; i < n; i++) {
      const base = (v.rows[i] as number) * v.stride;
      const w = cy[i] as number;
      if (cols)
        for (let c = c0; c < c1; c++) {
          const x = v.data[base + (cols[c] as number)] as number;
          ones[c] = (ones[c] as number) + x;
          s1[c] = (s1[c] as number) + x * w;
        }
      else
        for (let c = c0; c < c1; c++) {
          const x = v.data[base + c] as number;
          ones[c] = (ones[c] as number) + x;
          s1[c] = (s1[c] as number) + x * w;
        }
    }
  };
}

/**
 * Rank correlation of every 0/1 column (per-instance correctness: nearly every column) in one
 * row-major pass. With c₀ zeros and c₁ ones the average ranks are r₀ = (c₀ + 1)/2 and
 * r₁ = c₀ + (c₁ + 1)/2, so the column needs only c₁ and S₁ = Σ over its ones of the centred target
 * ranks: Σ r·cy = (r₁ − r₀)·S₁ (the centred ranks sum to 0) and Σ r² = c₀r₀² + c₁r₁². Every term
 * is a multiple of ¼ far below 2⁵³, so these sums are exact and ρ is bit for bit the one the
 * per-column ranking gives. Fills `out` for those columns; returns the other view columns.
 */
function binaryColumnSpearman(v: MatrixView, cy: Float64Array, syy: number, my: number, out: Float64Array): number[] {
  const n = v.rows.length;
  const nc = viewCols(v);
  const binary = binaryColumns(v.data, v.stride);
  const share = worthSharing(v.data, n * nc);
  const args: BinarySumsArgs = { view: v, cy, ones: share ? sharedFloat64(nc) : new Float64Array(nc), s1: share ? sharedFloat64(nc) : new Float64Array(nc) };
  runChunks('binarySums', args, Math.ceil(nc / binarySumsWidth), binarySumsChunk(args), share);
  const { ones, s1 } = args;
  const cols = v.cols;
  const rest: number[] = [];
  for (let c = 0; c < nc; c++) {
    if (!binary[cols ? (cols[c] as number) : c]) {
      rest.push(c);
      continue;
    }
    out[c] = binaryRho(ones[c] as number, n, s1[c] as number, syy, my);
  }
  return rest;
}

/** ρ of a 0/1 column with `c1` ones among `n` rows, from S₁ = Σ over its ones of the centred target ranks. */
export function binaryRho(c1: number, n: number, s1: number, syy: number, my: number): number {
  const c0 = n - c1;
  if (c1 === 0 || c0 === 0) return NaN;
  const r0 = (c0 + 1) / 2 - my;
  const r1 = c0 + (c1 + 1) / 2 - my;
  const sxx = c0 * r0 * r0 + c1 * r1 * r1;
  const sxy = (r1 - r0) * s1;
  return sxx > 1e-12 && syy > 0 ? Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))) : NaN;
}

/** Per full-matrix column: 1 when every stored value is 0 or 1 (computed once per matrix). */
const binaryCache = new WeakMap<Float64Array, Uint8Array>();

export function binaryColumns(data: Float64Array, stride: number): Uint8Array {
  let binary = binaryCache.get(data);
  if (binary && binary.length === stride) return binary;
  binary = new Uint8Array(stride).fill(1);
  for (let base = 0; base + stride <= data.length; base += stride)
    for (let c = 0; c < stride; c++) {
      const x = data[base + c] as number;
      if (x !== 0 && x !== 1) binary[c] = 0;
    }
  binaryCache.set(data, binary);
  return binary;
}

export interface RankedColumnsArgs {
  view: MatrixView;
  cy: Float64Array;
  syy: number;
  my: number;
  out: Float64Array;
}

/**
 * Columns per chunk of the ranking path: read in blocks, row by row, and transposed into a
 * 2 MiB buffer (walking the matrix column-wise would touch a new cache line for every cell once
 * there are thousands of models).
 */
function rankedWidth(n: number, nc: number): number {
  return Math.max(1, Math.min(nc, Math.floor((1 << 18) / Math.max(1, n))));
}

/** Chunk `chunk` of the per-column ranking path (any values) behind `columnSpearman`, for the columns that are not 0/1. */
export function rankedColumnsChunk({ view: v, cy, syy, my, out }: RankedColumnsArgs): (chunk: number) => void {
  const n = v.rows.length;
  const nc = viewCols(v);
  const width = rankedWidth(n, nc);
  const col = new Float64Array(n);
  const order = new Int32Array(n);
  const ranks = new Float64Array(n);
  const sorted = new Float64Array(n);
  const block = new Float64Array(width * n);
  return (chunk) => {
    const c0 = chunk * width;
    const w = Math.min(width, nc - c0);
    fillBlock(v, c0, w, n, block);
    for (let offset = 0; offset < w; offset++) {
      const c = c0 + offset;
      col.set(block.subarray(offset * n, offset * n + n));
      if (n > 48) {
        out[c] = sortedRankCorrelation(col, sorted, cy, syy, my);
        continue;
      }
      for (let i = 0; i < n; i++) order[i] = i;
      for (let i = 1; i < n; i++) {
        const oi = order[i] as number;
        const x = col[oi] as number;
        let j = i - 1;
        while (j >= 0 && (col[order[j] as number] as number) > x) {
          order[j + 1] = order[j] as number;
          j--;
        }
        order[j + 1] = oi;
      }
      let i = 0;
      let sxx = 0;
      let sxy = 0;
      while (i < n) {
        let j = i;
        const val = col[order[i] as number] as number;
        while (j + 1 < n && col[order[j + 1] as number] === val) j++;
        const avg = (i + j) / 2 + 1 - my;
        for (let t = i; t <= j; t++) {
          const idx = order[t] as number;
          ranks[idx] = avg;
          sxx += avg * avg;
          sxy += avg * (cy[idx] as number);
        }
        i = j + 1;
      }
      out[c] = sxx > 1e-12 && syy > 0 ? Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))) : NaN;
    }
  };
}

function rankedColumns(v: MatrixView, cy: Float64Array, syy: number, my: number): Float64Array {
  const n = v.rows.length;
  const nc = viewCols(v);
  const share = worthSharing(v.data, n * nc);
  const args: RankedColumnsArgs = { view: v, cy, syy, my, out: share ? sharedFloat64(nc) : new Float64Array(nc) };
  runChunks('rankedColumns', args, Math.ceil(nc / rankedWidth(n, nc)), rankedColumnsChunk(args), share);
  return args.out;
}

/**
 * Average ranks from a sorted copy: one pass over the sorted values gives each distinct value
 * its average rank; per-instance scores have few distinct values (0/1, graded steps), so the
 * lookup is a short scan, with binary search when there are many.
 */
export function sortedRankCorrelation(col: Float64Array, sorted: Float64Array, cy: Float64Array, syy: number, my: number): number {
  const n = col.length;
  const few = fewValuesCorrelation(col, cy, syy, my);
  if (few !== undefined) return few;
  sorted.set(col);
  sorted.sort();
  if (sorted[0] === sorted[n - 1]) return NaN;
  const vals: number[] = [];
  const avg: number[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    const v = sorted[i] as number;
    while (j + 1 < n && sorted[j + 1] === v) j++;
    vals.push(v);
    avg.push((i + j) / 2 + 1 - my);
    i = j + 1;
  }
  const runs = vals.length;
  let sxx = 0;
  let sxy = 0;
  for (let t = 0; t < n; t++) {
    const x = col[t] as number;
    let r: number;
    if (runs <= 16) {
      let k = 0;
      while (k < runs - 1 && vals[k] !== x) k++;
      r = avg[k] as number;
    } else {
      let lo = 0;
      let hi = runs - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((vals[mid] as number) < x) lo = mid + 1;
        else hi = mid;
      }
      r = avg[lo] as number;
    }
    sxx += r * r;
    sxy += r * (cy[t] as number);
  }
  return sxx > 1e-12 && syy > 0 ? Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))) : NaN;
}

export const maxDistinct = 32;
const distinctValues = new Float64Array(maxDistinct);
const distinctCounts = new Int32Array(maxDistinct);
const distinctCy = new Float64Array(maxDistinct);

/**
 * Rank correlation of a column with at most 32 distinct values (binary and graded per-instance
 * scores — nearly every column), from counts instead of a sort: O(n) per column, one pass. A
 * value's average rank is the number of smaller values plus (its count + 1)/2. Every rank and
 * every centred target rank `cy` is a multiple of ½ (average ranks), so Σ r² = Σₖ countₖ·rₖ² and
 * Σ r·cy = Σₖ rₖ·(Σ cy over value k) add multiples of ¼ far below 2⁵³: exact, the sums a pass
 * over the rows gives bit for bit. Returns undefined for a column with more distinct values,
 * which takes the sorting path.
 */
function fewValuesCorrelation(col: Float64Array, cy: Float64Array, syy: number, my: number): number | undefined {
  const n = col.length;
  let d = 0;
  for (let t = 0; t < n; t++) {
    const x = col[t] as number;
    let k = 0;
    while (k < d && distinctValues[k] !== x) k++;
    if (k === d) {
      if (d === maxDistinct) return undefined;
      distinctValues[d] = x;
      distinctCounts[d] = 0;
      distinctCy[d] = 0;
      d++;
    }
    distinctCounts[k] = (distinctCounts[k] as number) + 1;
    distinctCy[k] = (distinctCy[k] as number) + (cy[t] as number);
  }
  return countsRho(distinctValues, distinctCounts, distinctCy, d, syy, my);
}

/**
 * ρ of a column with `d` distinct values (`values[k]` seen `counts[k]` times, `sums[k]` the sum
 * of the centred target ranks over its rows). Exact (see fewValuesCorrelation), so it does not
 * depend on the order of the values.
 */
export function countsRho(values: ArrayLike<number>, counts: ArrayLike<number>, sums: ArrayLike<number>, d: number, syy: number, my: number): number {
  if (d === 1) return NaN;
  let sxx = 0;
  let sxy = 0;
  for (let k = 0; k < d; k++) {
    let below = 0;
    for (let j = 0; j < d; j++) if ((values[j] as number) < (values[k] as number)) below += counts[j] as number;
    const r = below + ((counts[k] as number) + 1) / 2 - my;
    sxx += (counts[k] as number) * r * r;
    sxy += r * (sums[k] as number);
  }
  return sxx > 1e-12 && syy > 0 ? Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))) : NaN;
}

/** block[j*n + r] = view[r, c0 + j] for j < w. */
function fillBlock(v: MatrixView, c0: number, w: number, n: number, block: Float64Array): void {
  for (let r = 0; r < n; r++) {
    const base = (v.rows[r] as number) * v.stride;
    if (v.cols) for (let j = 0; j < w; j++) block[j * n + r] = v.data[base + (v.cols[c0 + j] as number)] as number;
    else for (let j = 0; j < w; j++) block[j * n + r] = v.data[base + c0 + j] as number;
  }
}
