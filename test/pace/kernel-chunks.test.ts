/**
 * The chunked kernels (kernels.ts, column-spearman.ts: split across a kernel thread where there
 * is one) against the plain loops they replace: the same numbers bit for bit, on ordinary and on
 * shared memory, over all columns and over a column subset. Under the test runner the kernel
 * worker cannot load TypeScript, so every chunk runs in-thread here; the worker runs the same
 * chunk functions (fit outputs are compared byte for byte in docs/benchmarks.md's runs).
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { sharedFloat64, sharedMinCells } from '../../generator/core/kernel/shared-memory.js';
import { orthonormalizeColumns, range, viewCols, type MatrixView } from '../../generator/core/pace/numerics/kernels.js';
import { mulLeftT, mulRight } from '../../generator/core/pace/numerics/products.js';
import { plainMulLeftT, plainMulRight } from './plain-products.js';
import { columnSpearman } from '../../generator/core/pace/numerics/column-spearman.js';
import { columnSpearmanFolds } from '../../generator/core/pace/numerics/column-spearman-folds.js';
import { averageRanks, pearson } from '../../generator/core/pace/numerics/rank.js';

function matrix(n: number, cols: number, shared: boolean, seed: string): Float64Array {
  const rng = new Rng(seed);
  const data = shared ? sharedFloat64(n * cols) : new Float64Array(n * cols);
  // Mostly 0/1 columns, a few graded ones (steps of 0.05), one constant column.
  for (let c = 0; c < cols; c++) {
    const graded = c % 5 === 3;
    for (let r = 0; r < n; r++) data[r * cols + c] = c === 7 ? 1 : graded ? Math.round(rng.next() * 20) / 20 : rng.next() < 0.4 ? 1 : 0;
  }
  return data;
}

function plainOrthonormalize(a: Float64Array, m: number, k: number): void {
  for (let j = 0; j < k; j++) {
    for (let pass = 0; pass < 2; pass++)
      for (let p = 0; p < j; p++) {
        let dot = 0;
        for (let i = 0; i < m; i++) dot += (a[i * k + p] as number) * (a[i * k + j] as number);
        if (dot !== 0) for (let i = 0; i < m; i++) a[i * k + j] = (a[i * k + j] as number) - dot * (a[i * k + p] as number);
      }
    let norm = 0;
    for (let i = 0; i < m; i++) norm += (a[i * k + j] as number) ** 2;
    norm = Math.sqrt(norm);
    for (let i = 0; i < m; i++) a[i * k + j] = norm < 1e-10 ? 0 : (a[i * k + j] as number) / norm;
  }
}

const same = (a: Float64Array, b: Float64Array) => expect(Array.from(a, (x) => Object.is(x, -0) ? '-0' : x)).toEqual(Array.from(b, (x) => Object.is(x, -0) ? '-0' : x));

describe('chunked kernels equal the plain loops bit for bit', () => {
  // Above the split threshold on shared memory (the path that may use the kernel thread), and a small case.
  const cases = [
    { n: 70, cols: Math.ceil(sharedMinCells / 60), shared: true },
    { n: 33, cols: 2_500, shared: false },
  ];
  for (const { n, cols, shared } of cases)
    it(`${n} × ${cols}${shared ? ' (shared memory)' : ''}`, () => {
      const data = matrix(n, cols, shared, `chunks/${n}`);
      const rng = new Rng('chunks/dense');
      const rows = Int32Array.from(range(n)).reverse().subarray(0, n - 3);
      const subset = Int32Array.from({ length: Math.floor(cols / 2) }, (_, i) => 2 * i + 1);
      for (const v of [
        { data, stride: cols, rows, cols: null },
        { data, stride: cols, rows, cols: subset },
      ] as MatrixView[]) {
        for (const k of shared ? [20] : [20, 7]) {
          const b = Float64Array.from({ length: viewCols(v) * k }, () => rng.normal());
          const q = Float64Array.from({ length: v.rows.length * k }, () => rng.normal());
          same(mulRight(v, b, k), plainMulRight(v, b, k));
          same(mulLeftT(v, q, k), plainMulLeftT(v, q, k));
        }
        const y = Float64Array.from(v.rows, () => Math.round(rng.next() * 10));
        const got = columnSpearman(v, y);
        const ry = averageRanks(y);
        const col = new Float64Array(v.rows.length);
        for (let c = 0; c < viewCols(v); c += 97) {
          for (let r = 0; r < v.rows.length; r++) col[r] = v.data[(v.rows[r] as number) * v.stride + (v.cols ? (v.cols[c] as number) : c)] as number;
          const want = pearson(averageRanks(col), ry);
          if (Number.isNaN(want)) expect(got[c]).toBeNaN();
          else expect(got[c]).toBeCloseTo(want, 12);
        }
      }
      const a = Float64Array.from({ length: 3_000 * 12 }, () => rng.normal());
      for (let i = 0; i < 3_000; i++) a[i * 12 + 5] = a[i * 12] as number; // a dependent column, zeroed
      const want = Float64Array.from(a);
      orthonormalizeColumns(a, 3_000, 12);
      plainOrthonormalize(want, 3_000, 12);
      same(a, want);
    });
});

describe('columnSpearmanFolds', () => {
  it("gives each fold's columnSpearman bit for bit", () => {
    const n = 150;
    const cols = 600;
    const data = matrix(n, cols, false, 'folds');
    const rng = new Rng('folds/y');
    // Columns with many distinct values (the sorting path) and a constant one over a fold's rows.
    for (let r = 0; r < n; r++) {
      data[r * cols + 11] = rng.next();
      data[r * cols + 12] = r % 3 === 0 ? 0.5 : 0.25;
    }
    const view: MatrixView = { data, stride: cols, rows: Int32Array.from(range(n)).reverse(), cols: null };
    const y = Float64Array.from({ length: n }, () => Math.round(rng.next() * 30) / 30);
    const folds = [0, 1, 2].map((f) => {
      const rows = Int32Array.from(range(n).filter((i) => i % 3 !== f));
      return { rows, y: Float64Array.from(rows, (i) => y[i] as number) };
    });
    const got = columnSpearmanFolds(view, folds);
    folds.forEach((f, k) => same(got[k]!, columnSpearman({ ...view, rows: Int32Array.from(f.rows, (i) => view.rows[i] as number) }, f.y)));
  });
});

describe('Rng.fillUint32', () => {
  it('continues the stream nextUint32 draws', () => {
    const a = new Rng('fill');
    const b = new Rng('fill');
    a.next();
    b.next();
    const filled = a.fillUint32(new Uint32Array(1_000));
    expect(Array.from(filled)).toEqual(Array.from({ length: 1_000 }, () => b.nextUint32()));
    expect(a.next()).toBe(b.next());
  });
});

describe('Rng.fillSignBits', () => {
  it('sets bit i exactly where nextUint32 draws at least 2³¹, and continues the stream', () => {
    for (const n of [1, 7, 8, 9, 500, 1_003]) {
      const a = new Rng(`signs/${n}`);
      const b = new Rng(`signs/${n}`);
      const bytes = Math.ceil(n / 8);
      const masks = new Uint8Array(bytes + 2).fill(0xee);
      a.fillSignBits(masks, 1, n);
      const want = new Uint8Array(bytes);
      for (let i = 0; i < n; i++) if (b.nextUint32() >= 0x80000000) want[i >> 3]! |= 1 << (i & 7);
      expect(Array.from(masks.subarray(1, 1 + bytes))).toEqual(Array.from(want));
      // Bytes outside the range are left alone.
      expect([masks[0], masks[bytes + 1]]).toEqual([0xee, 0xee]);
      expect(a.nextUint32()).toBe(b.nextUint32());
    }
  });
});
