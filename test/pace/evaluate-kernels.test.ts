import { describe, expect, it } from 'vitest';
import { exactUpTo, signFlipResamples, signFlipTests } from '../../generator/core/pace/evaluation/sign-flip.js';
import { Rng } from '../../generator/core/kernel/rng.js';

/** The Monte Carlo test written the plain way: one draw of the stream per model, sign times |d|. */
function plainMonteCarlo(d: number[]): { pLess: number; pGreater: number } {
  const rng = new Rng('aptpace/sign-flip/v1');
  const observed = d.reduce((a, b) => a + b, 0);
  const abs = d.map(Math.abs);
  const slack = 1e-12 * Math.max(1, abs.reduce((a, b) => a + b, 0));
  let less = 1;
  let greater = 1;
  for (let r = 0; r < signFlipResamples; r++) {
    let sum = 0;
    for (const a of abs) sum += (rng.next() < 0.5 ? 1 : -1) * a;
    if (sum <= observed + slack) less++;
    if (sum >= observed - slack) greater++;
  }
  return { pLess: less / (signFlipResamples + 1), pGreater: greater / (signFlipResamples + 1) };
}

describe('sign-flip test above the exact size', () => {
  it('gives the plain model-by-model p-values, with ties, zeros and model counts that are not a multiple of 8', () => {
    const rng = new Rng('sign-flip-test');
    for (const n of [exactUpTo + 1, 37, 64]) {
      const spread = Array.from({ length: n }, () => rng.next() - 0.4);
      const ties = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 0 : i % 2 ? 0.1 : -0.1));
      const got = signFlipTests([spread, ties]);
      for (const [i, d] of [spread, ties].entries()) {
        const want = plainMonteCarlo(d);
        expect(got[i]!.pLess, `n=${n} set ${i}`).toBe(want.pLess);
        expect(got[i]!.pGreater, `n=${n} set ${i}`).toBe(want.pGreater);
        expect(got[i]!.exact).toBe(false);
      }
    }
  });
});

describe('average ranks', () => {
  it('the insertion path (few values) and the sorted-copy path (many) rank as the comparator sort does: ties, -0 and 0, infinities, NaN', async () => {
    const { averageRanks } = await import('../../generator/core/pace/numerics/rank.js');
    const plain = (v: number[]) => {
      const order = v.map((_, i) => i).sort((a, b) => v[a]! - v[b]! || a - b);
      const r = new Float64Array(v.length);
      for (let i = 0; i < v.length; ) {
        let j = i;
        while (j + 1 < v.length && v[order[j + 1]!] === v[order[i]!]) j++;
        for (let t = i; t <= j; t++) r[order[t]!] = (i + j) / 2 + 1;
        i = j + 1;
      }
      return Array.from(r);
    };
    const rng = new Rng('ranks');
    const pool = [0, -0, 1, 1, 2, 0.5, -3, Infinity, -Infinity];
    for (let k = 0; k < 500; k++) {
      const n = 1 + rng.int(k < 400 ? 60 : 3000);
      const v = Array.from({ length: n }, () => (rng.next() < 0.5 ? pool[rng.int(pool.length)]! : Math.round(rng.next() * 8) / 4));
      if (k % 50 === 0) v[rng.int(n)] = NaN;
      expect(Array.from(averageRanks(v)), JSON.stringify(v)).toEqual(plain(v));
    }
  });
});
