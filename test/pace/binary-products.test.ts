/**
 * X·B and Xᵀ·Q over bit masks (numerics/binary-products.ts) against the one-entry-at-a-time
 * loops, where an index mistake would show: row and column counts that are not multiples of 8
 * (partial mask bytes), output widths around the 8- and 4-wide register groups, graded columns
 * among 0/1 ones (their terms come from their floats), −0, all-zero and all-one rows, views
 * over a permuted row subset and a shuffled column subset, and shared memory above the split
 * threshold. The sums group their terms differently, so they agree to rounding: within 1e-13 of
 * the sum of the terms' magnitudes.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { sharedFloat64, sharedMinCells } from '../../generator/core/kernel/shared-memory.js';
import { viewCols, type MatrixView } from '../../generator/core/pace/numerics/kernels.js';
import { binaryMasks, mulLeftTBits, mulRightBits } from '../../generator/core/pace/numerics/binary-products.js';
import { plainMulLeftT, plainMulRight, productViews } from './plain-products.js';

/** 0/1 columns at different densities, every `gradedEvery`-th column graded, −0 among the zeros, row 1 all zero, row 2 all one. */
function responses(n: number, cols: number, gradedEvery: number, shared: boolean, seed: string): Float64Array {
  const rng = new Rng(seed);
  const data = shared ? sharedFloat64(n * cols) : new Float64Array(n * cols);
  const p = Array.from({ length: cols }, () => 0.05 + 0.9 * rng.next());
  for (let r = 0; r < n; r++)
    for (let c = 0; c < cols; c++) {
      let x = rng.next() < (p[c] as number) ? 1 : rng.next() < 0.2 ? -0 : 0;
      if (gradedEvery && c % gradedEvery === 3 % gradedEvery) x = Math.round(rng.next() * 20) / 20;
      if (r === 1) x = 0;
      if (r === 2) x = 1;
      data[r * cols + c] = x;
    }
  return data;
}

const abs = (a: Float64Array) => a.map(Math.abs);

/** |got − want| within 1e-13 of the terms' magnitudes (`scale`), entry by entry. */
function close(got: Float64Array, want: Float64Array, scale: Float64Array): void {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs((got[i] as number) - (want[i] as number)) / Math.max(1e-300, scale[i] as number));
  expect(worst).toBeLessThan(1e-13);
}

function check(v: MatrixView, k: number, rng: Rng): void {
  const masks = binaryMasks(v);
  expect(masks).not.toBeNull();
  const b = Float64Array.from({ length: viewCols(v) * k }, () => rng.normal());
  const q = Float64Array.from({ length: v.rows.length * k }, () => rng.normal());
  const absView = { ...v, data: abs(v.data) };
  close(mulRightBits(masks!, b, k), plainMulRight(v, b, k), plainMulRight(absView, abs(b), k));
  close(mulLeftTBits(masks!, q, k), plainMulLeftT(v, q, k), plainMulLeftT(absView, abs(q), k));
}

describe('products over bit masks equal the plain loops to rounding', () => {
  const widths = [1, 3, 4, 5, 8, 9, 13, 20, 21];
  for (const [n, cols, gradedEvery] of [
    [37, 1_031, 0],
    [101, 700, 7],
    [3, 5_003, 11],
    [8, 64, 0],
  ] as const)
    it(`${n} × ${cols}${gradedEvery ? `, every ${gradedEvery}th column graded` : ', all 0/1'}, k = ${widths.join(', ')}`, () => {
      const data = responses(n, cols, gradedEvery, false, `bits/${n}`);
      const rng = new Rng(`bits/${n}/factors`);
      for (const v of productViews(data, n, cols, `bits/${n}/views`)) for (const k of widths) check(v, k, rng);
    });

  it('on shared memory above the split threshold (the chunked path), with the same numbers as unshared', () => {
    const n = 45;
    const cols = Math.ceil(sharedMinCells / 30) + 3;
    const shared = responses(n, cols, 9, true, 'bits/shared');
    const plain = Float64Array.from(shared);
    const rng = new Rng('bits/shared/factors');
    for (const [vs, vp] of productViews(shared, n, cols, 'bits/shared/views').map((v, i) => [v, productViews(plain, n, cols, 'bits/shared/views')[i]!] as const).slice(0, 2)) {
      const k = 13;
      const b = Float64Array.from({ length: viewCols(vs) * k }, () => rng.normal());
      const q = Float64Array.from({ length: vs.rows.length * k }, () => rng.normal());
      const ms = binaryMasks(vs)!;
      const mp = binaryMasks(vp)!;
      expect(ms.shared).toBe(true);
      expect(mp.shared).toBe(false);
      // Every chunk is a fixed range with outputs of its own: the split does not change a bit.
      expect(Array.from(mulRightBits(ms, b, k))).toEqual(Array.from(mulRightBits(mp, b, k)));
      expect(Array.from(mulLeftTBits(ms, q, k))).toEqual(Array.from(mulLeftTBits(mp, q, k)));
      const absView = { ...vp, data: abs(plain) };
      close(mulRightBits(ms, b, k), plainMulRight(vp, b, k), plainMulRight(absView, abs(b), k));
      close(mulLeftTBits(ms, q, k), plainMulLeftT(vp, q, k), plainMulLeftT(absView, abs(q), k));
    }
  });

  it('declines a view whose columns are mostly graded, and keeps graded columns out of the masks', () => {
    const n = 20;
    const cols = 40;
    expect(binaryMasks(productViews(responses(n, cols, 1, false, 'bits/graded'), n, cols, 'v')[0]!)).toBeNull();
    const data = responses(n, cols, 7, false, 'bits/some-graded');
    const masks = binaryMasks(productViews(data, n, cols, 'v')[0]!)!;
    expect(Array.from(masks.graded!.cols)).toEqual(Array.from({ length: cols }, (_, c) => c).filter((c) => c % 7 === 3));
    for (let r = 0; r < n; r++)
      for (let c = 0; c < cols; c++) {
        const bit = ((masks.rowMasks[r * masks.colBytes + (c >> 3)] as number) >> (c & 7)) & 1;
        const colBit = ((masks.colMasks[c * masks.rowBytes + (r >> 3)] as number) >> (r & 7)) & 1;
        expect(bit).toBe(c % 7 === 3 ? 0 : data[r * cols + c] === 1 ? 1 : 0);
        if (c % 7 !== 3) expect(colBit).toBe(bit);
      }
  });
});
