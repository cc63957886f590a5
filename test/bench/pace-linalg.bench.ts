/**
 * mathjs against PACE's typed-array kernels, same inputs, same run, for every kind of dense
 * work PACE does. A ratio > 1 means mathjs is slower. docs/dependencies.md quotes these ratios
 * to justify each place where typed arrays are kept instead of mathjs.
 *  - symmetric eigenproblems: k × k (global projections, k ≤ 10) and pool-size (Gram of the
 *    training models, 11–26); the nested search solves ~10⁴ of them per LOOCV run;
 *  - k × k solves (Bradley–Terry Newton steps);
 *  - Gram matrix X·Xᵀ and the product X·Ω over the instance axis (SVD routes).
 */
import { symmetricEigen, pinvSymApply } from '../../generator/core/pace/numerics/linalg.js';
import { gramRows, range } from '../../generator/core/pace/numerics/kernels.js';
import { mulRight } from '../../generator/core/pace/numerics/products.js';
import { Rng } from '../../generator/core/kernel/rng.js';
import { report } from './measure.js';

const t0 = performance.now();
const math = await import('mathjs');
const importMs = performance.now() - t0;
const rng = new Rng('linalg-bench');

/** Mean milliseconds per call over `reps` calls after one warm-up call. */
function ms(fn: () => unknown, reps: number): number {
  fn();
  const t = performance.now();
  for (let r = 0; r < reps; r++) fn();
  return (performance.now() - t) / reps;
}

function binary(rows: number, cols: number): Float64Array {
  return Float64Array.from({ length: rows * cols }, () => (rng.next() < 0.5 ? 1 : 0));
}
const nested = (a: Float64Array, rows: number, cols: number) => Array.from({ length: rows }, (_, i) => Array.from(a.subarray(i * cols, (i + 1) * cols)));

report('pace-linalg mathjs import', { import_ms: importMs });

for (const n of [4, 7, 11, 26]) {
  // A Gram matrix of n models on 60 binary items: the shape of PACE's eigenproblems.
  const x = binary(n, 60);
  const g = gramRows({ data: x, stride: 60, rows: range(n), cols: null });
  const arr = nested(g, n, n);
  const precision = Number((1e-15 * Math.sqrt(g.reduce((s, v) => s + v * v, 0))).toPrecision(3));
  const reps = n <= 11 ? 200 : 20;
  const mj = ms(() => math.eigs(arr, { precision, eigenvectors: true }), reps);
  const ta = ms(() => symmetricEigen(g, n), reps);
  report(`pace-linalg eigs ${n}x${n}`, { mathjs_ms: mj, typed_ms: ta, ratio: mj / ta });
}

for (const k of [3, 7, 10]) {
  const a = binary(k + 5, k);
  const s = new Float64Array(k * k);
  for (let i = 0; i < k + 5; i++) for (let p = 0; p < k; p++) for (let q = 0; q < k; q++) s[p * k + q] = (s[p * k + q] as number) + (a[i * k + p] as number) * (a[i * k + q] as number);
  for (let p = 0; p < k; p++) s[p * k + p] = (s[p * k + p] as number) + 0.1;
  const v = Float64Array.from({ length: k }, () => rng.normal());
  const arr = nested(s, k, k);
  const mj = ms(() => math.lusolve(arr, Array.from(v)), 500);
  const ta = ms(() => pinvSymApply(s, k, v), 500);
  report(`pace-linalg solve ${k}x${k}`, { mathjs_lusolve_ms: mj, typed_eigen_pinv_ms: ta, ratio: mj / ta });
}

{
  const n = 26;
  const cols = 24_000;
  const x = binary(n, cols);
  const arr = nested(x, n, cols);
  const mj = ms(() => math.multiply(arr, math.transpose(arr)), 2);
  const ta = ms(() => gramRows({ data: x, stride: cols, rows: range(n), cols: null }), 2);
  report(`pace-linalg gram ${n}x${cols}`, { mathjs_ms: mj, typed_ms: ta, ratio: mj / ta });
}

{
  const n = 500;
  const cols = 10_000;
  const l = 13;
  const x = binary(n, cols);
  const omega = Float64Array.from({ length: cols * l }, () => rng.normal());
  const xa = nested(x, n, cols);
  const oa = nested(omega, cols, l);
  const mj = ms(() => math.multiply(xa, oa), 1);
  const ta = ms(() => mulRight({ data: x, stride: cols, rows: range(n), cols: null }, omega, l), 1);
  report(`pace-linalg product ${n}x${cols}·${cols}x${l}`, { mathjs_ms: mj, typed_ms: ta, ratio: mj / ta });
}
