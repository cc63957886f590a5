/**
 * Lasso by cyclic coordinate descent, with sklearn's objective
 * (1/2n)‖y − b − Xw‖² + α‖w‖₁. α = 0.1·α_max of the training fold (α_max = the smallest α
 * giving w = 0) for the baselines, a fixed point on the regularisation path so no held-out
 * information enters. Pure functions of their inputs: they run in the main thread or on a worker
 * (lasso-thread.ts) alike.
 */
export interface LassoFit {
  weights: Float64Array;
  intercept: number;
  alpha: number;
  iterations: number;
  /** Working-set solve only (lasso-active.ts): whether the weights are certified as the unique optimum. */
  unique?: boolean;
}

/**
 * Columns coded for coordinate descent: each column's values among the training rows are few
 * (0/1 scores: two), so a column is stored as one small code per row and a table of its distinct
 * values. A product with a centred column reads `table[code] − mean`, the very double a
 * centred copy would hold, so every sum is bit-identical to one over a dense centred copy while
 * the sweeps stream 1 byte per cell instead of 8.
 */
export interface CodedColumns {
  n: number;
  p: number;
  /** codes[j*n + i]: row i of column j, an index into the column's slice of `values`. */
  codes: Uint8Array | Uint16Array;
  /** Column j's distinct values are values[start[j] … start[j+1]). */
  start: Int32Array;
  values: Float64Array;
}

/**
 * out[b] = x_jᵀr for the first `count` columns j = batch[b], x_j read through its codes and the
 * per-column value `table` (centred values): four columns in one pass over r, each summed in row
 * order, so the cyclic and the working-set solvers get the same sums bit for bit.
 */
export function codedProducts(x: CodedColumns, table: Float64Array, r: Float64Array, batch: ArrayLike<number>, count: number, out: Float64Array): void {
  const { n, codes, start } = x;
  if (count === 4) {
    const o0 = (batch[0] as number) * n;
    const o1 = (batch[1] as number) * n;
    const o2 = (batch[2] as number) * n;
    const o3 = (batch[3] as number) * n;
    const t0 = start[batch[0] as number] as number;
    const t1 = start[batch[1] as number] as number;
    const t2 = start[batch[2] as number] as number;
    const t3 = start[batch[3] as number] as number;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < n; i++) {
      const ri = r[i] as number;
      s0 += (table[t0 + (codes[o0 + i] as number)] as number) * ri;
      s1 += (table[t1 + (codes[o1 + i] as number)] as number) * ri;
      s2 += (table[t2 + (codes[o2 + i] as number)] as number) * ri;
      s3 += (table[t3 + (codes[o3 + i] as number)] as number) * ri;
    }
    out[0] = s0;
    out[1] = s1;
    out[2] = s2;
    out[3] = s3;
    return;
  }
  for (let b = 0; b < count; b++) {
    const o = (batch[b] as number) * n;
    const t = start[batch[b] as number] as number;
    let s = 0;
    for (let i = 0; i < n; i++) s += (table[t + (codes[o + i] as number)] as number) * (r[i] as number);
    out[b] = s;
  }
}

/** Codes a column-major (p × n) matrix: x[j*n + i]. */
export function codeColumnMajor(x: Float64Array, n: number, p: number): CodedColumns {
  return codeColumns(n, p, (j, out) => out.set(x.subarray(j * n, (j + 1) * n)));
}

/** Codes columns read one at a time (`fill(j, out)` writes column j's n values into out). */
export function codeColumns(n: number, p: number, fill: (j: number, out: Float64Array) => void): CodedColumns {
  let codes: Uint8Array | Uint16Array = new Uint8Array(p * n);
  const start = new Int32Array(p + 1);
  let values: Float64Array = new Float64Array(Math.max(16, 2 * p));
  let used = 0;
  const col = new Float64Array(n);
  const seen = new Map<number, number>();
  for (let j = 0; j < p; j++) {
    fill(j, col);
    start[j] = used;
    if (used + 2 > values.length) values = grow(values, used + 2);
    // 0/1 columns (the usual case) take the table [0, 1] without a lookup.
    let binary = true;
    for (let i = 0; i < n; i++) {
      const v = col[i] as number;
      if (v !== 0 && v !== 1) {
        binary = false;
        break;
      }
    }
    const o = j * n;
    if (binary) {
      for (let i = 0; i < n; i++) codes[o + i] = col[i] === 1 ? 1 : 0;
      // Keep −0 as it is: the table holds the column's own doubles.
      values[used] = 0;
      values[used + 1] = 1;
      for (let i = 0; i < n; i++) if (col[i] === 0 && Object.is(col[i], -0)) binary = false;
      if (binary) {
        used += 2;
        continue;
      }
    }
    seen.clear();
    for (let i = 0; i < n; i++) {
      const v = col[i] as number;
      const key = Object.is(v, -0) ? Number.NaN : v;
      let c = seen.get(key);
      if (c === undefined) {
        c = seen.size;
        seen.set(key, c);
        if (used + c + 1 > values.length) values = grow(values, used + c + 1);
        values[used + c] = v;
        if (c > 255 && codes instanceof Uint8Array) codes = Uint16Array.from(codes);
      }
      codes[o + i] = c;
    }
    used += seen.size;
  }
  start[p] = used;
  return { n, p, codes, start, values: values.subarray(0, used) };
}

/**
 * The columns of `pool` at its rows `at`, in that order: each row keeps its code and each column
 * its table, so every product over the picked rows reads the very doubles a coding of those rows
 * alone would hold (in the same row order), and a fit on them is the same bit for bit.
 */
export function pickRows(pool: CodedColumns, at: Int32Array): CodedColumns {
  const { n: all, p } = pool;
  const n = at.length;
  const codes = pool.codes instanceof Uint8Array ? new Uint8Array(p * n) : new Uint16Array(p * n);
  for (let j = 0; j < p; j++) {
    const from = j * all;
    const to = j * n;
    for (let i = 0; i < n; i++) codes[to + i] = pool.codes[from + (at[i] as number)] as number;
  }
  return { n, p, codes, start: pool.start, values: pool.values };
}

function grow(a: Float64Array, need: number): Float64Array {
  const b = new Float64Array(Math.max(need, 2 * a.length));
  b.set(a);
  return b;
}

/**
 * `x` is column-major (p × n): x[j*n + i]. Coordinates that provably stay at zero are skipped
 * (see the loop), which leaves every iterate unchanged.
 */
export function lassoFit(x: Float64Array, n: number, p: number, y: Float64Array, alpha: number | { ratio: number }, tol = 1e-10, maxIter = 10000): LassoFit {
  return lassoFitCoded(codeColumnMajor(x, n, p), y, alpha, tol, maxIter);
}

/** Centred tables of coded columns: table[start[j] + c] − mean of column j, the value a centred copy would hold. */
export interface CentredColumns {
  xm: Float64Array;
  table: Float64Array;
  /** ‖x_j − mean‖² per column, summed in row order. */
  norms: Float64Array;
}

export function centreColumns(x: CodedColumns): CentredColumns {
  const { n, p, codes, start: colStart } = x;
  const xm = new Float64Array(p);
  const norms = new Float64Array(p);
  const table: Float64Array = new Float64Array(x.values.length);
  for (let j = 0; j < p; j++) {
    const o = j * n;
    const t0 = colStart[j] as number;
    let s = 0;
    for (let i = 0; i < n; i++) s += x.values[t0 + (codes[o + i] as number)] as number;
    xm[j] = s / n;
    for (let t = t0; t < (colStart[j + 1] as number); t++) table[t] = (x.values[t] as number) - s / n;
    let nn = 0;
    for (let i = 0; i < n; i++) {
      const v = table[t0 + (codes[o + i] as number)] as number;
      nn += v * v;
    }
    norms[j] = nn;
  }
  return { xm, table, norms };
}

/** α itself, or `ratio`·α_max with α_max = max_j |x_jᵀ(y − ȳ)|/n (each product summed in row order). */
export function resolveAlpha(x: CodedColumns, table: Float64Array, centredY: Float64Array, alpha: number | { ratio: number }): number {
  if (typeof alpha === 'number') return alpha;
  const { n, p, codes, start: colStart } = x;
  let maxCorr = 0;
  for (let j = 0; j < p; j++) {
    const o = j * n;
    const t0 = colStart[j] as number;
    let s = 0;
    for (let i = 0; i < n; i++) s += (table[t0 + (codes[o + i] as number)] as number) * (centredY[i] as number);
    maxCorr = Math.max(maxCorr, Math.abs(s) / n);
  }
  return alpha.ratio * maxCorr;
}

/** The centred columns, the centred target (a fresh array) and the resolved α, as both lasso solvers start. */
export function centredProblem(x: CodedColumns, y: Float64Array, alpha: number | { ratio: number }): ReturnType<typeof centreColumns> & { ym: number; yc: Float64Array; alpha: number } {
  const cols = centreColumns(x);
  let ym = 0;
  for (const v of y) ym += v;
  ym /= x.n;
  const yc = Float64Array.from(y, (v) => v - ym);
  return { ...cols, ym, yc, alpha: resolveAlpha(x, cols.table, yc, alpha) };
}

/** `lassoFit` on coded columns (the same iterates, bit for bit). */
export function lassoFitCoded(x: CodedColumns, y: Float64Array, alpha: number | { ratio: number }, tol = 1e-10, maxIter = 10000): LassoFit {
  const { n, p, codes, start: colStart } = x;
  // The residual starts as the centred target.
  const { xm, table, norms, ym, yc: r, alpha: a } = centredProblem(x, y, alpha);
  const w = new Float64Array(p);
  const thresh = n * a;
  // Certified skips (exact: the iterates are the ones a full sweep gives). A coordinate at zero
  // whose last computed |ρ| was below the threshold stays at zero while the residual has moved
  // too little to lift it over: |ρ_now| ≤ |ρ_then| + ‖x_j‖·‖r_now − r_then‖ + rounding of both dot
  // products (γ·‖x_j‖·‖r‖). ‖r_now − r_then‖ is bounded through the residual saved at the start of
  // each sweep: the distance between two saved residuals is computed, and within a sweep the
  // path travelled since its start (Σ |d|·‖x_k‖ over the updates, with their rounding) bounds the
  // rest. A skipped coordinate is one whose update would have been 0 → 0 and changed nothing.
  const eps = Number.EPSILON;
  const colNorm = Float64Array.from(norms, (v) => Math.sqrt(v) * (1 + 4 * n * eps));
  const gamma = 2 * 1.01 * n * eps;
  const seenRho = new Float64Array(p);
  const seenSweep = new Int32Array(p).fill(-1);
  const seenOffset = new Float64Array(p);
  const saved: Float64Array[] = [];
  // Per sweep s: ‖saved[s]‖ (bounded above), and its distance to the current sweep's start (stamped with that sweep).
  const savedNorm = new Float64Array(maxIter);
  const distance = new Float64Array(maxIter);
  const distanceStamp = new Int32Array(maxIter).fill(-1);
  const batch = new Int32Array(4);
  const dots = new Float64Array(4);
  const products = (count: number): void => codedProducts(x, table, r, batch, count, dots);
  let iter = 0;
  for (; iter < maxIter; iter++) {
    let maxDelta = 0;
    let maxW = 0;
    const start = Float64Array.from(r);
    saved.push(start);
    let rStart = 0;
    for (const v of r) rStart += v * v;
    // ‖saved residual‖ with its rounding, as each distance below adds it.
    savedNorm[iter] = Math.sqrt(rStart) * (1 + 4 * n * eps);
    rStart = Math.sqrt(rStart) * (1 + 4 * n * eps);
    const distanceTo = (s: number): number => {
      if ((distanceStamp[s] as number) === iter) return distance[s] as number;
      const a = saved[s] as Float64Array;
      // Four partial sums (the rounding bound below holds for any order of an n-term sum).
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let i = 0;
      for (; i + 3 < n; i += 4) {
        const d0 = (start[i] as number) - (a[i] as number);
        const d1 = (start[i + 1] as number) - (a[i + 1] as number);
        const d2 = (start[i + 2] as number) - (a[i + 2] as number);
        const d3 = (start[i + 3] as number) - (a[i + 3] as number);
        s0 += d0 * d0;
        s1 += d1 * d1;
        s2 += d2 * d2;
        s3 += d3 * d3;
      }
      for (; i < n; i++) s0 += ((start[i] as number) - (a[i] as number)) ** 2;
      const sum = s0 + s1 + (s2 + s3);
      const d = Math.sqrt(sum) * (1 + 4 * n * eps) + 4 * eps * (rStart + (savedNorm[s] as number));
      distance[s] = d;
      distanceStamp[s] = iter;
      return d;
    };
    let path = 0;
    // Coordinates are taken in order, but the products of up to four of them are computed in one
    // pass over the residual (four independent sums, each in the same order as on its own). The
    // residual is the same for all four until one of them changes it: the rest are then dropped
    // and taken again after it, with the skip test redone on the new path.
    let j = 0;
    while (j < p) {
      let count = 0;
      let scan = j;
      for (; scan < p && count < 4; scan++) {
        const nj = norms[scan] as number;
        if (nj <= 0) continue;
        if ((w[scan] as number) === 0 && (seenSweep[scan] as number) >= 0) {
          const s = seenSweep[scan] as number;
          // ‖r_now − r_then‖: within this sweep, the path since then; across sweeps, the path since this
          // sweep's start + the distance between the two saved residuals + the path within that sweep.
          const moved = s === iter ? path - (seenOffset[scan] as number) : path + distanceTo(s) + (seenOffset[scan] as number);
          const bound = (seenRho[scan] as number) + (colNorm[scan] as number) * (moved + gamma * (rStart + path));
          if (bound < thresh * (1 - 1e-12)) continue;
        }
        batch[count++] = scan;
      }
      products(count);
      let next = scan;
      for (let b = 0; b < count; b++) {
        const jj = batch[b] as number;
        const nj = norms[jj] as number;
        const old = w[jj] as number;
        const rho = (dots[b] as number) + nj * old;
        const value = rho > thresh ? (rho - thresh) / nj : rho < -thresh ? (rho + thresh) / nj : 0;
        if (old === 0 && value === 0) {
          seenRho[jj] = Math.abs(rho);
          seenSweep[jj] = iter;
          seenOffset[jj] = path;
        } else seenSweep[jj] = -1;
        maxW = Math.max(maxW, Math.abs(value));
        if (value !== old) {
          const d = value - old;
          const o = jj * n;
          const t0 = colStart[jj] as number;
          for (let i = 0; i < n; i++) r[i] = (r[i] as number) - d * (table[t0 + (codes[o + i] as number)] as number);
          w[jj] = value;
          maxDelta = Math.max(maxDelta, Math.abs(d));
          path += Math.abs(d) * (colNorm[jj] as number) * (1 + 3 * eps) + 2 * eps * (rStart + path + Math.abs(d) * (colNorm[jj] as number));
          next = jj + 1;
          break;
        }
      }
      j = next;
    }
    if (maxDelta <= tol * Math.max(1, maxW)) break;
  }
  let intercept = ym;
  for (let j = 0; j < p; j++) intercept -= (xm[j] as number) * (w[j] as number);
  return { weights: w, intercept, alpha: a, iterations: iter };
}

