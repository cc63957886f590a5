/**
 * Ranks and correlations with scipy's conventions: ties get the average rank
 * (`scipy.stats.rankdata(method='average')`), and a constant input gives NaN.
 */
import { viewCols, type MatrixView } from './kernels.js';

export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  // NaN has no place in a numeric order: such input keeps the comparator sort's order (ties by index).
  const nan = hasNaN(values);
  if (!nan && n > INSERTION_UP_TO) return ranksBySortedCopy(values);
  const order = nan ? Array.from({ length: n }, (_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number) || a - b) : insertionOrder(values);
  const ranks = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i;
    const v = values[order[i] as number] as number;
    while (j + 1 < n && values[order[j + 1] as number] === v) j++;
    const avg = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) ranks[order[t] as number] = avg;
    i = j + 1;
  }
  return ranks;
}

/**
 * Up to this many values the order comes from an insertion sort on a typed array (above it, from
 * a sorted copy): evaluate ranks a few dozen models per bootstrap resample and metric, hundreds
 * of thousands of times, where building an index array and sorting it with a comparator cost
 * more than the ranking itself.
 */
const INSERTION_UP_TO = 48;

function hasNaN(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i])) return true;
  return false;
}

/**
 * Average ranks without an index sort: the values' native numeric sort, one average rank per run
 * of equal values, then a lookup per value (PACE's bootstrap pool ranks thousands of values per
 * fold). −0 and 0 are one run, as `===` and Map keys treat them, so the ranks equal the
 * comparator route's.
 */
function ranksBySortedCopy(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const sorted = Float64Array.from(values).sort();
  const rankOf = new Map<number, number>();
  for (let i = 0; i < n; ) {
    let j = i;
    const v = sorted[i]!;
    while (j + 1 < n && sorted[j + 1] === v) j++;
    rankOf.set(v, (i + j) / 2 + 1);
    i = j + 1;
  }
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; i++) ranks[i] = rankOf.get(values[i] as number)!;
  return ranks;
}

/** Indices by ascending value, equal values by index (the comparator sort's order). */
function insertionOrder(values: ArrayLike<number>): Int32Array {
  const n = values.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    let j = i;
    // Strictly greater: an equal value already placed has a lower index and stays first.
    while (j > 0 && (values[order[j - 1]!] as number) > v) {
      order[j] = order[j - 1]!;
      j--;
    }
    order[j] = i;
  }
  return order;
}

export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (n !== b.length || n < 2) return NaN;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i] as number;
    mb += b[i] as number;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = (a[i] as number) - ma;
    const db = (b[i] as number) - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  if (saa <= 0 || sbb <= 0) return NaN;
  return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}

export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return pearson(averageRanks(a), averageRanks(b));
}

/**
 * Spearman ρ of every view column with `y` (one value per view row). Columns that are constant
 * over the view rows give NaN, as scipy does. Small-n ranking uses insertion sort on a
 * reused buffer: this is the hot loop of selection (one call per fold over ~10⁵ columns).
 */
export function columnSpearman(v: MatrixView, y: ArrayLike<number>): Float64Array {
  const n = v.rows.length;
  const nc = viewCols(v);
  const ry = averageRanks(y);
  const my = (n + 1) / 2;
  let syy = 0;
  const cy = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    cy[i] = (ry[i] as number) - my;
    syy += (cy[i] as number) ** 2;
  }
  const out = new Float64Array(nc);
  const rest = binaryColumnSpearman(v, cy, syy, my, out);
  if (rest.length === 0) return out;
  const sub = rankedColumns({ ...v, cols: Int32Array.from(rest, (c) => (v.cols ? (v.cols[c] as number) : c)) }, cy, syy, my);
  rest.forEach((c, i) => (out[c] = sub[i] as number));
  return out;
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
  const ones = new Float64Array(nc);
  const s1 = new Float64Array(nc);
  const cols = v.cols;
  for (let i = 0; i < n; i++) {
    const base = (v.rows[i] as number) * v.stride;
    const w = cy[i] as number;
    if (cols)
      for (let c = 0; c < nc; c++) {
        const x = v.data[base + (cols[c] as number)] as number;
        ones[c] = (ones[c] as number) + x;
        s1[c] = (s1[c] as number) + x * w;
      }
    else
      for (let c = 0; c < nc; c++) {
        const x = v.data[base + c] as number;
        ones[c] = (ones[c] as number) + x;
        s1[c] = (s1[c] as number) + x * w;
      }
  }
  const rest: number[] = [];
  for (let c = 0; c < nc; c++) {
    if (!binary[cols ? (cols[c] as number) : c]) {
      rest.push(c);
      continue;
    }
    const c1 = ones[c] as number;
    const c0 = n - c1;
    if (c1 === 0 || c0 === 0) {
      out[c] = NaN;
      continue;
    }
    const r0 = (c0 + 1) / 2 - my;
    const r1 = c0 + (c1 + 1) / 2 - my;
    const sxx = c0 * r0 * r0 + c1 * r1 * r1;
    const sxy = (r1 - r0) * (s1[c] as number);
    out[c] = sxx > 1e-12 && syy > 0 ? Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy))) : NaN;
  }
  return rest;
}

/** Per full-matrix column: 1 when every stored value is 0 or 1 (computed once per matrix). */
const binaryCache = new WeakMap<Float64Array, Uint8Array>();

function binaryColumns(data: Float64Array, stride: number): Uint8Array {
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

/** The per-column ranking path (any values) behind `columnSpearman`, for the columns that are not 0/1. */
function rankedColumns(v: MatrixView, cy: Float64Array, syy: number, my: number): Float64Array {
  const n = v.rows.length;
  const nc = viewCols(v);
  const out = new Float64Array(nc);
  const col = new Float64Array(n);
  const order = new Int32Array(n);
  const ranks = new Float64Array(n);
  const sorted = new Float64Array(n);
  // Columns are read in blocks, row by row, and transposed into `block`: walking the matrix
  // column-wise would touch a new cache line for every cell once there are thousands of models.
  const width = Math.max(1, Math.min(nc, Math.floor((1 << 20) / Math.max(1, n))));
  const block = new Float64Array(width * n);
  for (let c = 0; c < nc; c++) {
    const offset = c % width;
    if (offset === 0) fillBlock(v, c, Math.min(width, nc - c), n, block);
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
  return out;
}

/**
 * Average ranks from a sorted copy: one pass over the sorted values gives each distinct value
 * its average rank; per-instance scores have few distinct values (0/1, graded steps), so the
 * lookup is a short scan, with binary search when there are many.
 */
function sortedRankCorrelation(col: Float64Array, sorted: Float64Array, cy: Float64Array, syy: number, my: number): number {
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

const maxDistinct = 32;
const distinctValues = new Float64Array(maxDistinct);
const distinctCounts = new Int32Array(maxDistinct);
const distinctRanks = new Float64Array(maxDistinct);

/**
 * Rank correlation of a column with at most 32 distinct values (binary and graded per-instance
 * scores — nearly every column), from counts instead of a sort: O(n) per column. A value's
 * average rank is the number of smaller values plus (its count + 1)/2. Returns undefined for a
 * column with more distinct values, which takes the sorting path.
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
      d++;
    }
    distinctCounts[k] = (distinctCounts[k] as number) + 1;
  }
  if (d === 1) return NaN;
  for (let k = 0; k < d; k++) {
    let below = 0;
    for (let j = 0; j < d; j++) if ((distinctValues[j] as number) < (distinctValues[k] as number)) below += distinctCounts[j] as number;
    distinctRanks[k] = below + ((distinctCounts[k] as number) + 1) / 2 - my;
  }
  let sxx = 0;
  let sxy = 0;
  for (let t = 0; t < n; t++) {
    const x = col[t] as number;
    let k = 0;
    while (distinctValues[k] !== x) k++;
    const r = distinctRanks[k] as number;
    sxx += r * r;
    sxy += r * (cy[t] as number);
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
