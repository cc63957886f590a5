/**
 * PACE's small dense linear algebra through mathjs: the Newton solves of Bradley–Terry, the
 * least-squares placement of a partially observed checkpoint, and the pool-size symmetric
 * eigenproblem of each fold's global SVD. mathjs is loaded once, lazily, by the PACE entry
 * points (`await loadDense()` in fit, LOOCV and predict), so commands that never run PACE
 * never load it.
 *
 * Where a same-run benchmark (`npm run bench -- pace-linalg`, docs/dependencies.md) shows
 * mathjs to be the bottleneck, typed-array kernels do the work instead: products and Gram
 * matrices over the instance axis and the randomized SVD (kernels.ts, svd.ts), and the
 * thousands of k × k and pool-size eigenproblems of the nested search (linalg.ts).
 */
import type { SymmetricEigen } from './linalg.js';

type MathJs = typeof import('mathjs');
let math: MathJs | null = null;

export async function loadDense(): Promise<void> {
  if (!math) math = await import('mathjs');
}

function lib(): MathJs {
  if (!math) throw new Error('PACE dense linear algebra used before loadDense()');
  return math;
}

function nested(a: Float64Array, rows: number, cols: number): number[][] {
  return Array.from({ length: rows }, (_, i) => Array.from(a.subarray(i * cols, (i + 1) * cols)));
}

/**
 * Solves S·x = v for a symmetric positive definite k × k S (row-major) by LU with partial
 * pivoting (mathjs `lusolve`). Returns null when S is numerically singular, so the caller can
 * fall back to a pseudo-inverse.
 */
export function solveSpd(s: Float64Array, k: number, v: Float64Array): Float64Array | null {
  try {
    const x = lib().lusolve(nested(s, k, k), Array.from(v)) as number[][];
    const out = Float64Array.from(x, (row) => row[0] as number);
    return out.every(Number.isFinite) ? out : null;
  } catch {
    return null;
  }
}

/**
 * Eigen-decomposition of a symmetric n × n matrix (row-major) with mathjs `eigs`, in the same
 * form as linalg.symmetricEigen: values descending, column j of `vectors` the j-th vector, the
 * largest-magnitude component of each vector positive. mathjs' Jacobi stops on an absolute
 * off-diagonal size, so the tolerance is scaled to the matrix (1e-15·‖S‖_F).
 */
export function symmetricEigenMathjs(input: Float64Array, n: number): SymmetricEigen {
  const a = nested(input, n, n);
  let fro = 0;
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const v = ((input[i * n + j] as number) + (input[j * n + i] as number)) / 2;
      a[i]![j] = v;
      fro += v * v;
    }
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  if (!(fro > 0)) {
    for (let i = 0; i < n; i++) vectors[i * n + i] = 1;
    return { values, vectors };
  }
  // mathjs rejects a tolerance with more than 15 significant digits.
  const precision = Number((1e-15 * Math.sqrt(fro)).toPrecision(3));
  const { eigenvectors } = lib().eigs(a, { precision, eigenvectors: true }) as unknown as { eigenvectors: Array<{ value: number; vector: number[] }> };
  const order = eigenvectors.map((e, i) => ({ value: e.value, vector: e.vector, i })).sort((x, y) => y.value - x.value || x.i - y.i);
  order.forEach((e, j) => {
    values[j] = e.value;
    let big = 0;
    for (let i = 1; i < n; i++) if (Math.abs(e.vector[i] as number) > Math.abs(e.vector[big] as number)) big = i;
    const sign = (e.vector[big] as number) < 0 ? -1 : 1;
    for (let i = 0; i < n; i++) vectors[i * n + j] = sign * (e.vector[i] as number);
  });
  return { values, vectors };
}
