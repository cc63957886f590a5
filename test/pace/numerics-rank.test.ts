/**
 * Rank-deficient inputs against numpy.linalg.matrix_rank / svd: score blocks where models are
 * identical on the chosen items (duplicate rows), duplicate or summed instances (dependent
 * columns), on each SVD route. The SVD must return exactly the numerical rank (never a
 * component made of rounding noise), with singular values and subspaces equal to numpy's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { range, type MatrixView } from '../../generator/core/pace/numerics/kernels.js';
import { topSvd, type TopSvd } from '../../generator/core/pace/numerics/svd.js';
import { embedViewRow, localEmbedding } from '../../generator/core/pace/embedding/embed.js';
import { runReference, skipPython } from './reference.js';

const rng = new Rng('rank');
const bits = (n: number) => Array.from({ length: n }, () => (rng.next() < 0.5 ? 1 : 0));

/** rows × cols 0/1 matrix built from `distinct` random rows, each repeated. */
function duplicateRows(rows: number, cols: number, distinct: number): number[][] {
  const base = Array.from({ length: distinct }, () => bits(cols));
  return Array.from({ length: rows }, (_, r) => base[(r * 7) % distinct]!.slice());
}
/** Every column a copy or a sum of two of `base` random 0/1 columns (duplicate and summed instances). */
function dependentCols(rows: number, cols: number, base: number): number[][] {
  const b = Array.from({ length: rows }, () => bits(base));
  return b.map((r) => Array.from({ length: cols }, (_, c) => (c < base ? r[c]! : r[c % base]! + (c % 3 === 0 ? r[(c + 1) % base]! : 0))));
}

const cases = {
  // The shape of a selected local block: 12 training models, 8 distinct on the chosen items.
  localBlock: duplicateRows(12, 70, 8),
  // Few distinct models, wide: Gram over rows.
  wide: duplicateRows(20, 900, 6),
  // Tall and narrow: Gram over columns.
  narrow: dependentCols(160, 40, 6),
  // Randomized route: 150 models spanning 5 directions.
  randomized: (() => {
    const f = Array.from({ length: 5 }, () => bits(600));
    return Array.from({ length: 150 }, () => {
      const w = Array.from({ length: 5 }, () => Math.floor(rng.next() * 3));
      return f[0]!.map((_, c) => w.reduce((s, wi, i) => s + wi * (f[i]![c] as number), 0));
    });
  })(),
};

const script = String.raw`
import json, sys
import numpy as np
d = json.load(sys.stdin)
out = {}
for name, rows in d['cases'].items():
    A = np.array(rows, dtype=float)
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    r = int(np.linalg.matrix_rank(A))
    out[name] = {'rank': r, 's': s[:r].tolist(), 'V': Vt[:r].T.tolist()}
# Local embedding of a held-out row on a rank-deficient block: coordinates x·V_k·Σ_k⁻¹.
A = np.array(d['cases']['localBlock'], dtype=float)
train, test = A[:-1], A[-1]
_, s, Vt = np.linalg.svd(train, full_matrices=False)
k = min(d['ncH'], int(np.linalg.matrix_rank(train)))
out['localK'] = k
out['localTest'] = (test @ Vt[:k].T / s[:k]).tolist()
print(json.dumps(out))
`;

let ref: any;
const viewOf = (rows: number[][]): MatrixView => ({ data: Float64Array.from(rows.flat()), stride: rows[0]!.length, rows: range(rows.length), cols: null });

/** Largest principal-angle sine between our top-r right subspace and numpy's. */
function subspaceGap(svd: TopSvd, V: number[][], r: number): number {
  const nc = V.length;
  let worst = 0;
  for (let j = 0; j < r; j++) {
    // ‖v_j − V Vᵀ v_j‖ for each of our vectors.
    const proj = new Float64Array(nc);
    for (let p = 0; p < r; p++) {
      let dot = 0;
      for (let c = 0; c < nc; c++) dot += (svd.v[c * svd.k + j] as number) * (V[c]![p] as number);
      for (let c = 0; c < nc; c++) proj[c] = (proj[c] as number) + dot * (V[c]![p] as number);
    }
    let res = 0;
    for (let c = 0; c < nc; c++) res += ((svd.v[c * svd.k + j] as number) - (proj[c] as number)) ** 2;
    worst = Math.max(worst, Math.sqrt(res));
  }
  return worst;
}

describe.skipIf(skipPython)('rank-deficient blocks against numpy.linalg.matrix_rank / svd', () => {
  beforeAll(() => {
    ref = runReference(script, { cases, ncH: 10 });
  }, 60_000);

  it.each([
    ['localBlock', {}, 'gram'],
    ['wide', {}, 'gram'],
    ['narrow', {}, 'gram'],
    ['randomized', { gramMaxRows: 10, rng: new Rng('rsvd') }, 'randomized'],
  ] as const)('%s: k = numpy rank, singular values and subspace equal', (name, opts, method) => {
    const rows = cases[name];
    const expected = ref[name];
    const svd = topSvd(viewOf(rows), 12, opts);
    expect(svd.method).toBe(method);
    expect(expected.rank).toBeLessThan(Math.min(rows.length, rows[0]!.length, 12));
    expect(svd.k).toBe(expected.rank);
    for (let j = 0; j < svd.k; j++) expect(Math.abs((svd.singularValues[j] as number) - expected.s[j])).toBeLessThan(1e-9 * expected.s[0]);
    expect(subspaceGap(svd, expected.V, svd.k)).toBeLessThan(1e-7);
  });

  it('local embedding of a held-out model on a block with duplicate training models: k = rank, coordinates = numpy', () => {
    const rows = cases.localBlock;
    const view = viewOf(rows);
    const e = localEmbedding(view, range(rows.length - 1), range(rows[0]!.length), 10);
    expect(e.k).toBe(ref.localK);
    const u = embedViewRow(view, rows.length - 1, e);
    u.forEach((x, j) => expect(Math.abs(Math.abs(x) - Math.abs(ref.localTest[j]))).toBeLessThan(1e-9));
  });
});
