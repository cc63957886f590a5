/**
 * The ranked view of one question's options (learners.ts: within-question z-scores, ranks scaled
 * to [0, 1], raw values standardised by the training options' mean and sd) written into flat rows
 * of a reused buffer. Every value is computed as `standardiseWithin` (ranker.ts), `rankWithin` and
 * the raw part of `rankedView` compute it, in the same order of operations, so the numbers are the
 * same to the bit; only the arrays per option are gone.
 */

/** Writes option i's view at out[i·width …]: z-scores at 0..d−1, ranks at d..2d−1, raw at 2d..3d−1. */
export function rankedInto(rows: readonly (readonly number[])[], out: Float64Array, width: number, mean: readonly number[], sd: readonly number[]): void {
  const k = rows.length;
  if (k === 0) return;
  const d = rows[0]!.length;
  if (column.length < k) column = new Float64Array(k);
  for (let j = 0; j < d; j++) {
    // The column read once into a scratch array: the z-scores' sums and the ranks' comparisons read it there.
    let m = 0;
    for (let i = 0; i < k; i++) m += column[i] = rows[i]![j]!;
    m /= k;
    let variance = 0;
    for (let i = 0; i < k; i++) variance += (column[i]! - m) ** 2;
    const s = Math.sqrt(variance / k);
    for (let i = 0; i < k; i++) out[i * width + j] = s < 1e-9 ? 0 : (column[i]! - m) / s;
    for (let i = 0; i < k; i++) {
      if (k < 2) {
        out[i * width + d + j] = 0;
        continue;
      }
      // Counted without branches: which option is below which is as good as random to the CPU's branch predictor.
      let below = 0;
      let equal = 0;
      const v = column[i]!;
      for (let o = 0; o < k; o++) {
        const w = column[o]!;
        below += +(w < v);
        equal += +(w === v);
      }
      out[i * width + d + j] = (below + (equal - 1) / 2) / (k - 1);
    }
  }
  for (let i = 0; i < k; i++) writeRaw(rows[i]!, out, i * width + 2 * d, mean, sd);
}

/** Scratch for one column of a question's options. */
let column = new Float64Array(8);

/** A row's raw values standardised by the training mean and sd (0 where the sd is 0), at out[offset …]. */
export function writeRaw(row: readonly number[], out: Float64Array, offset: number, mean: readonly number[], sd: readonly number[]): void {
  for (let j = 0; j < row.length; j++) out[offset + j] = sd[j]! > 1e-9 ? (row[j]! - mean[j]!) / sd[j]! : 0;
}
