/**
 * X·B and Xᵀ·Q (numerics/products.ts) against the one-entry-at-a-time loops, bit for bit, where
 * a blocking or index mistake would show: output widths on either side of the 8- and 4-wide
 * register groups, row and column counts that are not multiples of the row groups, gather
 * widths or column blocks, 0/1 rows beside graded, negative, all-zero and all-one rows, −0,
 * and views over a permuted row order and a shuffled column subset.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { sharedFloat64, sharedMinCells } from '../../generator/core/kernel/shared-memory.js';
import { viewCols, type MatrixView } from '../../generator/core/pace/numerics/kernels.js';
import { mulLeftT, mulRight } from '../../generator/core/pace/numerics/products.js';
import { plainMulLeftT, plainMulRight, productViews } from './plain-products.js';

/** Rows of every kind: 0/1 at different densities, graded (steps of 0.05), signed, all zero, all one, −0 among 0/1. */
function mixed(n: number, cols: number, shared: boolean, seed: string): Float64Array {
  const rng = new Rng(seed);
  const data = shared ? sharedFloat64(n * cols) : new Float64Array(n * cols);
  for (let r = 0; r < n; r++) {
    const kind = r % 7;
    const p = 0.1 + 0.8 * rng.next();
    for (let c = 0; c < cols; c++) {
      let x: number;
      if (kind === 0 || kind === 1) x = rng.next() < p ? 1 : 0;
      else if (kind === 2) x = Math.round(rng.next() * 20) / 20;
      else if (kind === 3) x = c % 3 === 0 ? rng.normal() : rng.next() < p ? 1 : 0;
      else if (kind === 4) x = 0;
      else if (kind === 5) x = 1;
      else x = rng.next() < p ? 1 : rng.next() < 0.5 ? -0 : 0;
      data[r * cols + c] = x;
    }
  }
  // Graded columns inside 0/1 rows, as a benchmark scored by a graded metric would give.
  for (let c = 5; c < cols; c += 11) for (let r = 0; r < n; r += 2) data[r * cols + c] = Math.round(rng.next() * 20) / 20;
  return data;
}

const bits = (a: Float64Array) => Array.from(a, (x) => (Object.is(x, -0) ? '-0' : x));

describe('mulRight and mulLeftT equal the plain loops bit for bit', () => {
  // Widths around the register groups (8, 4, 1) and the block sizes that depend on k.
  const widths = [1, 3, 4, 5, 7, 8, 9, 12, 13, 17, 20, 21];
  for (const [n, cols] of [
    [37, 1_031],
    [101, 700],
    [3, 5_003],
  ] as const)
    it(`${n} × ${cols}, k = ${widths.join(', ')}`, () => {
      const data = mixed(n, cols, false, `products/${n}`);
      const rng = new Rng(`products/${n}/factors`);
      for (const v of productViews(data, n, cols, `products/${n}/views`))
        for (const k of widths) {
          const b = Float64Array.from({ length: viewCols(v) * k }, () => rng.normal());
          const q = Float64Array.from({ length: v.rows.length * k }, () => rng.normal());
          expect(bits(mulRight(v, b, k))).toEqual(bits(plainMulRight(v, b, k)));
          expect(bits(mulLeftT(v, q, k))).toEqual(bits(plainMulLeftT(v, q, k)));
        }
    });

  it('on shared memory above the split threshold (the chunked path)', () => {
    const n = 45;
    const cols = Math.ceil(sharedMinCells / 40) + 3;
    const data = mixed(n, cols, true, 'products/shared');
    const rng = new Rng('products/shared/factors');
    for (const v of productViews(data, n, cols, 'products/shared/views').slice(2))
      for (const k of [13]) {
        const b = Float64Array.from({ length: viewCols(v) * k }, () => rng.normal());
        const q = Float64Array.from({ length: v.rows.length * k }, () => rng.normal());
        expect(bits(mulRight(v, b, k))).toEqual(bits(plainMulRight(v, b, k)));
        expect(bits(mulLeftT(v, q, k))).toEqual(bits(plainMulLeftT(v, q, k)));
      }
  });
});
