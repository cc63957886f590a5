/**
 * The flat ranked view (ranked-rows.ts) against its definition, value by value and to the bit:
 * the z-scores of `standardiseWithin`, the tie-aware ranks scaled to [0, 1], and the raw values
 * standardised by the training mean and sd. Rows of 1–6 options with many ties, constant
 * columns and zero training sds, so a column, an option or a tie counted wrongly shows.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { rankedInto } from '../../generator/core/questions/audit/ranked-rows.js';
import { standardiseWithin } from '../../generator/core/questions/audit/ranker.js';

/** A rank among the options: the share of the others below, ties counted half. */
function rankOf(rows: readonly (readonly number[])[], i: number, j: number): number {
  const k = rows.length;
  if (k < 2) return 0;
  const below = rows.filter((r) => r[j]! < rows[i]![j]!).length;
  const equal = rows.filter((r) => r[j]! === rows[i]![j]!).length;
  return (below + (equal - 1) / 2) / (k - 1);
}

describe('the flat ranked view', () => {
  it('writes each option the z-scores, ranks and standardised raw values of its definition', () => {
    const rng = new Rng('ranked-rows');
    const d = 9;
    const mean = Array.from({ length: d }, () => rng.next() * 4 - 2);
    const sd = Array.from({ length: d }, (_, j) => (j % 4 === 0 ? 0 : 0.1 + rng.next()));
    const width = 3 * d + 2;
    for (let trial = 0; trial < 3000; trial++) {
      const k = 1 + rng.int(6);
      const rows = Array.from({ length: k }, () =>
        Array.from({ length: d }, (_, j) => (j === 1 ? 7 : j % 3 === 0 ? rng.int(3) : j % 3 === 1 ? rng.next() * 10 - 5 : rng.int(2) / 3)),
      );
      const out = new Float64Array(k * width).fill(Number.NaN);
      rankedInto(rows, out, width, mean, sd);
      const z = standardiseWithin(rows);
      for (let i = 0; i < k; i++) {
        for (let j = 0; j < d; j++) {
          expect(Object.is(out[i * width + j], z[i]![j])).toBe(true);
          expect(out[i * width + d + j]).toBe(rankOf(rows, i, j));
          expect(Object.is(out[i * width + 2 * d + j], sd[j]! > 1e-9 ? (rows[i]![j]! - mean[j]!) / sd[j]! : 0)).toBe(true);
        }
        // Columns past the view are not written.
        expect(Number.isNaN(out[i * width + 3 * d])).toBe(true);
      }
    }
  });
});
