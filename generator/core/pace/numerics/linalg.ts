/**
 * Small dense symmetric eigenproblems on typed arrays by cyclic Jacobi rotations (Golub & Van
 * Loan §8.5), checked against numpy.linalg.eigh. This is the one place PACE keeps its own
 * eigensolver: the nested search solves tens of thousands of k × k and pool-size problems, and
 * mathjs' `eigs` is ~10× slower per call (`npm run bench -- pace-linalg`, docs/dependencies.md).
 * Everything else small and dense goes through dense.ts (mathjs).
 */
import { solveSpd } from './dense.js';

export interface SymmetricEigen {
  /** Eigenvalues, descending. */
  values: Float64Array;
  /** n × n row-major; column j is the eigenvector of values[j]. */
  vectors: Float64Array;
}

/** Eigen-decomposition of a symmetric n × n matrix (row-major), eigenvalues sorted descending. */
export function symmetricEigen(input: Float64Array, n: number): SymmetricEigen {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = ((input[i * n + j] as number) + (input[j * n + i] as number)) / 2;
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  let scale = 0;
  for (let i = 0; i < n * n; i++) scale += (a[i] as number) ** 2;
  const tol = 1e-30 * Math.max(scale, 1e-300);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += (a[p * n + q] as number) ** 2;
    if (off <= tol) break;
    for (let p = 0; p < n - 1; p++)
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q] as number;
        if (apq === 0) continue;
        const app = a[p * n + p] as number;
        const aqq = a[q * n + q] as number;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p] as number;
          const akq = a[k * n + q] as number;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k] as number;
          const aqk = a[q * n + k] as number;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p] as number;
          const vkq = v[k * n + q] as number;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => (a[y * n + y] as number) - (a[x * n + x] as number) || x - y);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, j) => {
    values[j] = a[src * n + src] as number;
    // Deterministic sign: largest-magnitude component positive.
    let big = 0;
    for (let i = 1; i < n; i++) if (Math.abs(v[i * n + src] as number) > Math.abs(v[big * n + src] as number)) big = i;
    const sign = (v[big * n + src] as number) < 0 ? -1 : 1;
    for (let i = 0; i < n; i++) vectors[i * n + j] = sign * (v[i * n + src] as number);
  });
  return { values, vectors };
}

/**
 * Least-squares solution of A·x ≈ b for a small (m × k) A through the normal equations:
 * solved by mathjs when AᵀA is non-singular, otherwise by its pseudo-inverse (directions with
 * eigenvalue below rtol·max dropped, like numpy's pinv cut-off).
 */
export function leastSquares(a: Float64Array, m: number, k: number, b: Float64Array, rtol = 1e-12): Float64Array {
  const ata = new Float64Array(k * k);
  const atb = new Float64Array(k);
  for (let i = 0; i < m; i++) {
    for (let p = 0; p < k; p++) {
      const ap = a[i * k + p] as number;
      atb[p] = (atb[p] as number) + ap * (b[i] as number);
      for (let q = 0; q <= p; q++) ata[p * k + q] = (ata[p * k + q] as number) + ap * (a[i * k + q] as number);
    }
  }
  for (let p = 0; p < k; p++) for (let q = 0; q < p; q++) ata[q * k + p] = ata[p * k + q] as number;
  const { values } = symmetricEigen(ata, k);
  // LU is exact enough only when AᵀA is far from singular; near the cut-off the pseudo-inverse decides.
  if ((values[k - 1] as number) > 1e6 * rtol * Math.max(0, values[0] ?? 0)) {
    const x = solveSpd(ata, k, atb);
    if (x) return x;
  }
  return pinvSymApply(ata, k, atb, rtol);
}

/** pinv(S) (k × k, row-major) for a symmetric PSD S, from one eigen-decomposition. */
export function pinvSym(s: Float64Array, k: number, rtol = 1e-12): Float64Array {
  const { values, vectors } = symmetricEigen(s, k);
  const top = Math.max(0, values[0] ?? 0);
  const out = new Float64Array(k * k);
  for (let j = 0; j < k; j++) {
    const lambda = values[j] as number;
    if (!(lambda > rtol * top) || lambda <= 0) continue;
    for (let p = 0; p < k; p++) {
      const vp = (vectors[p * k + j] as number) / lambda;
      for (let q = 0; q < k; q++) out[p * k + q] = (out[p * k + q] as number) + vp * (vectors[q * k + j] as number);
    }
  }
  return out;
}

/** pinv(S)·v for a symmetric PSD S. */
export function pinvSymApply(s: Float64Array, k: number, v: Float64Array, rtol = 1e-12): Float64Array {
  const { values, vectors } = symmetricEigen(s, k);
  const top = Math.max(0, values[0] ?? 0);
  const out = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    const lambda = values[j] as number;
    if (!(lambda > rtol * top) || lambda <= 0) continue;
    let proj = 0;
    for (let i = 0; i < k; i++) proj += (vectors[i * k + j] as number) * (v[i] as number);
    proj /= lambda;
    for (let i = 0; i < k; i++) out[i] = (out[i] as number) + proj * (vectors[i * k + j] as number);
  }
  return out;
}

/** Solves (S + ridge·I) x = v for symmetric PSD S through one eigen-decomposition reused across ridges. */
export function ridgeSolver(s: Float64Array, k: number): (v: Float64Array, ridge: number) => Float64Array {
  const { values, vectors } = symmetricEigen(s, k);
  return (v, ridge) => {
    const out = new Float64Array(k);
    for (let j = 0; j < k; j++) {
      const lambda = Math.max(0, values[j] as number) + ridge;
      if (!(lambda > 0)) continue;
      let proj = 0;
      for (let i = 0; i < k; i++) proj += (vectors[i * k + j] as number) * (v[i] as number);
      proj /= lambda;
      for (let i = 0; i < k; i++) out[i] = (out[i] as number) + proj * (vectors[i * k + j] as number);
    }
    return out;
  };
}
