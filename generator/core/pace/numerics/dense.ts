/**
 * PACE's small dense linear algebra through mathjs: the Newton solves of Bradley–Terry and the
 * least-squares placement of a partially observed checkpoint. mathjs is loaded once, lazily, by the PACE entry
 * points (`await loadDense()` in fit, LOOCV and predict), so commands that never run PACE
 * never load it.
 *
 * Where a same-run benchmark (`npm run bench -- pace-linalg`, docs/dependencies.md) shows
 * mathjs to be the bottleneck, typed-array kernels do the work instead: products and Gram
 * matrices over the instance axis and the randomized SVD (kernels.ts, products.ts, svd.ts), and the
 * thousands of k × k and pool-size eigenproblems of the folds and the nested search (linalg.ts).
 */

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
