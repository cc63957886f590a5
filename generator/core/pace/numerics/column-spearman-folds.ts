/**
 * `columnSpearman` for every training set of a cross-validation at once: fit's 10 folds read
 * the matrix once instead of once per fold. Each fold's ρ is bit for bit the one
 * `columnSpearman` gives on its own training rows: the sums behind it (counts, and sums of
 * centred average ranks, all multiples of ½ far below 2⁵³) are exact, so they do not depend on
 * the order the rows are added in, and each ρ comes from the same expression (`binaryRho`,
 * `countsRho`, `sortedRankCorrelation` for a column with too many distinct values).
 */
import { viewCols, type MatrixView } from './kernels.js';
import { mulLeftT } from './products.js';
import { binaryColumns, binaryRho, centredRanks, columnSpearman, countsRho, maxDistinct, sortedRankCorrelation } from './column-spearman.js';

export interface FoldRows {
  /** The fold's training rows, as positions in the view's rows, in the fold's order. */
  rows: Int32Array;
  /** The target over those rows, in the same order. */
  y: Float64Array;
}

/** Below this many training rows `columnSpearman` ranks by insertion sort; such folds are left to it. */
const minRows = 49;

/** Graded columns gathered at once (their contiguous copies: 64 × rows doubles). */
const gatherColumns = 64;

export function columnSpearmanFolds(v: MatrixView, folds: FoldRows[]): Float64Array[] {
  const sub = (f: FoldRows): MatrixView => ({ ...v, rows: Int32Array.from(f.rows, (r) => v.rows[r] as number) });
  if (folds.length < 2 || folds.some((f) => f.rows.length < minRows)) return folds.map((f) => columnSpearman(sub(f), f.y));
  const n = v.rows.length;
  const nc = viewCols(v);
  const F = folds.length;
  const ranks = folds.map((f) => centredRanks(f.y));
  // Per view row: 1 and its centred rank for each fold it trains (0 and 0 where it is held out).
  const w = new Float64Array(n * 2 * F);
  folds.forEach((f, k) => f.rows.forEach((r, i) => {
    w[r * 2 * F + k] = 1;
    w[r * 2 * F + F + k] = ranks[k]!.cy[i] as number;
  }));
  // 0/1 columns: Xᵀ·W gives every fold's count of ones and S₁ in one product.
  const z = mulLeftT(v, w, 2 * F);
  const binary = binaryColumns(v.data, v.stride);
  const out = folds.map(() => new Float64Array(nc));
  const rest: number[] = [];
  for (let c = 0; c < nc; c++) {
    if (!binary[v.cols ? (v.cols[c] as number) : c]) {
      rest.push(c);
      continue;
    }
    for (let k = 0; k < F; k++) {
      const { syy, my } = ranks[k]!;
      out[k]![c] = binaryRho(z[c * 2 * F + k] as number, folds[k]!.rows.length, z[c * 2 * F + F + k] as number, syy, my);
    }
  }
  if (rest.length) gradedColumns(v, folds, ranks, w, rest, out);
  return out;
}

/** The columns that are not 0/1: per column, each value's count and rank sum in every fold. */
function gradedColumns(v: MatrixView, folds: FoldRows[], ranks: ReturnType<typeof centredRanks>[], w: Float64Array, rest: number[], out: Float64Array[]): void {
  const n = v.rows.length;
  const F = folds.length;
  const cap = 4 * maxDistinct;
  const values = new Float64Array(cap);
  const which = new Int32Array(n);
  const counts = new Float64Array(F * cap);
  const sums = new Float64Array(F * cap);
  const present = new Float64Array(cap);
  const presentCounts = new Float64Array(cap);
  const presentSums = new Float64Array(cap);
  const col = new Float64Array(n);
  const sorted = new Float64Array(n);
  // A block of columns is gathered row by row (each row's entries of the block lie close
  // together) into one contiguous column each: read column by column, a 100,000-wide
  // row-major matrix costs a cache miss per entry.
  const block = new Float64Array(Math.min(gatherColumns, rest.length) * n);
  for (let b0 = 0; b0 < rest.length; b0 += gatherColumns) {
    const b1 = Math.min(rest.length, b0 + gatherColumns);
    for (let r = 0; r < n; r++) {
      const base = (v.rows[r] as number) * v.stride;
      for (let b = b0; b < b1; b++) {
        const c = rest[b] as number;
        block[(b - b0) * n + r] = v.data[base + (v.cols ? (v.cols[c] as number) : c)] as number;
      }
    }
    for (let b = b0; b < b1; b++) {
      const c = rest[b] as number;
      const o = (b - b0) * n;
      let d = 0;
      for (let r = 0; r < n; r++) {
        const x = block[o + r] as number;
        let k = 0;
        while (k < d && values[k] !== x) k++;
        if (k === d) {
          if (d === cap) break;
          values[d++] = x;
        }
        which[r] = k;
      }
      // Too many distinct values over the union (or a NaN): every fold by the single-fold path.
      const many = d === cap;
      if (!many) {
        counts.fill(0);
        sums.fill(0);
        for (let r = 0; r < n; r++) {
          const k = which[r] as number;
          const wo = r * 2 * F;
          for (let f = 0; f < F; f++) {
            if (w[wo + f] === 0) continue;
            counts[f * cap + k] = (counts[f * cap + k] as number) + 1;
            sums[f * cap + k] = (sums[f * cap + k] as number) + (w[wo + F + f] as number);
          }
        }
      }
      for (let f = 0; f < F; f++) {
        const { cy, syy, my } = ranks[f]!;
        let df = 0;
        if (!many)
          for (let k = 0; k < d; k++) {
            if (counts[f * cap + k] === 0) continue;
            present[df] = values[k] as number;
            presentCounts[df] = counts[f * cap + k] as number;
            presentSums[df++] = sums[f * cap + k] as number;
          }
        if (!many && df <= maxDistinct) {
          out[f]![c] = countsRho(present, presentCounts, presentSums, df, syy, my);
          continue;
        }
        const rows = folds[f]!.rows;
        const train = col.subarray(0, rows.length);
        const buf = sorted.subarray(0, rows.length);
        for (let i = 0; i < rows.length; i++) train[i] = block[o + (rows[i] as number)] as number;
        out[f]![c] = sortedRankCorrelation(train, buf, cy, syy, my);
      }
    }
  }
}
