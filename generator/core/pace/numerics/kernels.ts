/**
 * Typed-array kernels over a row/column view of a row-major matrix. The instance axis can be
 * 100k wide, so every kernel streams over it once per pass and never materialises a copy
 * of the selected sub-matrix.
 */
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

/**
 * out[k] = Σ_c a[ao + c]·b[bo + k·w + c] over c = 0…w−1 in order, for k = 0…3: four dot
 * products of one vector with four consecutive rows (w apart), each read of a serving four sums.
 */
export function dot4(a: Float64Array, ao: number, b: Float64Array, bo: number, w: number, out: Float64Array): void {
  const o1 = bo + w;
  const o2 = o1 + w;
  const o3 = o2 + w;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let c = 0; c < w; c++) {
    const x = a[ao + c] as number;
    s0 += x * (b[bo + c] as number);
    s1 += x * (b[o1 + c] as number);
    s2 += x * (b[o2 + c] as number);
    s3 += x * (b[o3 + c] as number);
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

/** Gram matrix X·Xᵀ (rows × rows), accumulated over column blocks so a column subset is gathered once. */
export function gramRows(v: MatrixView): Float64Array {
  const n = v.rows.length;
  const nc = viewCols(v);
  const g = new Float64Array(n * n);
  const block = Math.max(256, Math.min(nc, Math.floor(4_000_000 / Math.max(1, n))));
  const buf = new Float64Array(n * block);
  const four = new Float64Array(4);
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
        dot4(buf, oi, buf, j * w, w, four);
        g[i * n + j] = (g[i * n + j] as number) + (four[0] as number);
        g[i * n + j + 1] = (g[i * n + j + 1] as number) + (four[1] as number);
        g[i * n + j + 2] = (g[i * n + j + 2] as number) + (four[2] as number);
        g[i * n + j + 3] = (g[i * n + j + 3] as number) + (four[3] as number);
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
