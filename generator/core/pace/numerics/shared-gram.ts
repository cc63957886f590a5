/**
 * The pool Gram matrix X·Xᵀ (pool rows × pool rows over the view's columns), computed once per
 * matrix and shared by every fold that needs a Gram matrix: the ridge and kNN baselines, and the
 * global SVD of each cross-validation fold (fold scope, Gram route). A fold's Gram matrix over
 * its training rows and the columns it keeps is the pool Gram's sub-matrix, minus the outer
 * products of the columns it leaves out (constant over its training models) and plus those of
 * the columns it adds (a fold view's columns that only held-out models miss, fold-view.ts). The
 * fold still decomposes exactly its own matrix; only the order of the floating-point sums
 * changes.
 */
import { gramRows, viewCols, type MatrixView } from './kernels.js';

interface Entry {
  rows: Int32Array;
  /** Full-matrix columns of the Gram matrix, ascending-agnostic (as the view lists them). */
  cols: Int32Array | null;
  gram: Float64Array;
}

/** Pool Grams per backing matrix; a few column sets at most (the pool's own, rarely another). */
const cache = new WeakMap<Float64Array, Entry[]>();
const maxEntries = 3;

function sameRows(a: Int32Array, b: Int32Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameCols(a: Int32Array | null, b: Int32Array | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return sameRows(a, b);
}

/** X·Xᵀ over all of the view's rows and columns, cached per backing matrix; bit-identical to `gramRows(view)`. */
export function poolGram(view: MatrixView): Float64Array {
  const entries = cache.get(view.data) ?? [];
  const hit = entries.find((e) => sameRows(e.rows, view.rows) && sameCols(e.cols, view.cols));
  if (hit) return hit.gram;
  const gram = gramRows(view);
  entries.unshift({ rows: view.rows, cols: view.cols, gram });
  entries.length = Math.min(entries.length, maxEntries);
  cache.set(view.data, entries);
  return gram;
}

/**
 * X·Xᵀ over `poolRows` (indices into `view.rows`) and the view's columns with `keep[c]` set
 * (all columns when `keep` is null), derived from the pool Gram when that is cheaper than
 * forming it afresh: the training rows are most of the pool and few columns differ from the
 * pool's. Otherwise it is formed directly, as before.
 */
export function foldGram(view: MatrixView, poolRows: Int32Array, keep: Uint8Array | null): Float64Array {
  const nc = viewCols(view);
  const n = poolRows.length;
  const colOf = (c: number) => (view.cols ? (view.cols[c] as number) : c);
  const direct = () => {
    const cols: number[] = [];
    for (let c = 0; c < nc; c++) if (!keep || keep[c]) cols.push(colOf(c));
    return gramRows({ data: view.data, stride: view.stride, rows: Int32Array.from(poolRows, (r) => view.rows[r] as number), cols: Int32Array.from(cols) });
  };
  if (2 * n < view.rows.length) return direct();
  const base = baseEntry(view);
  if (!base) return direct();
  // Columns of the fold not in the base Gram (+1) and columns of the base Gram not in the fold (−1).
  const inBase = new Uint8Array(view.stride);
  if (base.cols) for (const c of base.cols) inBase[c] = 1;
  else inBase.fill(1);
  const inFold = new Uint8Array(view.stride);
  for (let c = 0; c < nc; c++) if (!keep || keep[c]) inFold[colOf(c)] = 1;
  const changed: number[] = [];
  const signs: number[] = [];
  for (let c = 0; c < view.stride; c++)
    if (inBase[c] !== inFold[c]) {
      changed.push(c);
      signs.push(inFold[c] ? 1 : -1);
    }
  if (4 * changed.length > nc) return direct();
  const nAll = view.rows.length;
  const g = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    const ra = (poolRows[a] as number) * nAll;
    for (let b = 0; b < n; b++) g[a * n + b] = base.gram[ra + (poolRows[b] as number)] as number;
  }
  const x = new Float64Array(n);
  changed.forEach((c, t) => {
    let any = false;
    for (let a = 0; a < n; a++) {
      x[a] = view.data[(view.rows[poolRows[a] as number] as number) * view.stride + c] as number;
      if (x[a] !== 0) any = true;
    }
    if (!any) return;
    const s = signs[t] as number;
    for (let a = 0; a < n; a++) {
      const xa = s * (x[a] as number);
      if (xa === 0) continue;
      for (let b = 0; b < n; b++) g[a * n + b] = (g[a * n + b] as number) + xa * (x[b] as number);
    }
  });
  return g;
}

/** The cached pool Gram of this view's rows whose columns are closest to the view's own (computed for the view when there is none). */
function baseEntry(view: MatrixView): Entry | null {
  const entries = cache.get(view.data) ?? [];
  const sameRowEntries = entries.filter((e) => sameRows(e.rows, view.rows));
  const nc = viewCols(view);
  let best: Entry | null = null;
  let bestDiff = Infinity;
  for (const e of sameRowEntries) {
    const ec = e.cols ? e.cols.length : view.stride;
    const diff = Math.abs(ec - nc);
    if (diff < bestDiff) {
      bestDiff = diff;
      best = e;
    }
  }
  if (best && 4 * bestDiff <= nc) return best;
  poolGram(view);
  return (cache.get(view.data) ?? [])[0] ?? null;
}
