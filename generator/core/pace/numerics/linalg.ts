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

/**
 * Matrices up to this size use cyclic Jacobi; larger ones Householder tridiagonalisation +
 * implicit QL. Measured per call on Gram matrices: at 7 × 7 Jacobi is the faster (39 µs against
 * 46), at 11 × 11 QL already takes half the time and at 21 × 21 a fifth (89 µs against 431), the
 * size the nested search solves thousands of times (the pool less two models).
 */
export const jacobiUpTo = 10;

/**
 * Eigen-decomposition of a symmetric n × n matrix (row-major), eigenvalues sorted descending.
 * Small matrices (the k × k problems of the nested search) by cyclic Jacobi; pool-size ones
 * (kernel ridge, Gram-route SVDs of tens to hundreds of models) by Householder reduction to tridiagonal
 * form and the implicit QL algorithm (tred2/tql2, as in EISPACK and JAMA), which needs about
 * 9n³ flops against Jacobi's ~6n³ per sweep over 6–10 sweeps.
 */
export function symmetricEigen(input: Float64Array, n: number): SymmetricEigen {
  return n <= jacobiUpTo ? jacobiEigen(input, n) : tridiagonalEigen(input, n);
}

function jacobiEigen(input: Float64Array, n: number): SymmetricEigen {
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

/** Sorted descending, each vector's largest-magnitude component positive (ties: lower index). */
function sortedWithSigns(d: Float64Array, v: Float64Array, n: number): SymmetricEigen {
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => (d[y] as number) - (d[x] as number) || x - y);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, j) => {
    values[j] = d[src] as number;
    let big = 0;
    for (let i = 1; i < n; i++) if (Math.abs(v[i * n + src] as number) > Math.abs(v[big * n + src] as number)) big = i;
    const sign = (v[big * n + src] as number) < 0 ? -1 : 1;
    for (let i = 0; i < n; i++) vectors[i * n + j] = sign * (v[i * n + src] as number);
  });
  return { values, vectors };
}

function tridiagonalEigen(input: Float64Array, n: number): SymmetricEigen {
  // W starts as the symmetrised input (its own transpose); tred2 turns it into the Householder
  // transform, held transposed: QL rotates pairs of columns of V, two contiguous rows of W = Vᵀ.
  const w = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) w[i * n + j] = ((input[i * n + j] as number) + (input[j * n + i] as number)) / 2;
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  tred2(w, d, e, n);
  tql2(w, d, e, n);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) v[i * n + j] = w[j * n + i] as number;
  return sortedWithSigns(d, v, n);
}

/**
 * Householder reduction to tridiagonal form (JAMA's tred2), on Vᵀ: `V` holds the transform
 * column-major (V[c*n + r] is row r, column c), so the inner loops, which run down columns,
 * read contiguous memory. The arithmetic is JAMA's in the same order, and Vᵀ is what tql2 takes.
 */
function tred2(V: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  for (let j = 0; j < n; j++) d[j] = V[j * n + (n - 1)] as number;
  for (let i = n - 1; i > 0; i--) {
    let scale = 0;
    let h = 0;
    for (let k = 0; k < i; k++) scale += Math.abs(d[k] as number);
    if (scale === 0) {
      e[i] = d[i - 1] as number;
      for (let j = 0; j < i; j++) {
        d[j] = V[j * n + (i - 1)] as number;
        V[j * n + i] = 0;
        V[i * n + j] = 0;
      }
    } else {
      for (let k = 0; k < i; k++) {
        d[k] = (d[k] as number) / scale;
        h += (d[k] as number) * (d[k] as number);
      }
      let f = d[i - 1] as number;
      let g = Math.sqrt(h);
      if (f > 0) g = -g;
      e[i] = scale * g;
      h -= f * g;
      d[i - 1] = f - g;
      for (let j = 0; j < i; j++) e[j] = 0;
      for (let j = 0; j < i; j++) {
        f = d[j] as number;
        V[i * n + j] = f;
        g = (e[j] as number) + (V[j * n + j] as number) * f;
        for (let k = j + 1; k <= i - 1; k++) {
          g += (V[j * n + k] as number) * (d[k] as number);
          e[k] = (e[k] as number) + (V[j * n + k] as number) * f;
        }
        e[j] = g;
      }
      f = 0;
      for (let j = 0; j < i; j++) {
        e[j] = (e[j] as number) / h;
        f += (e[j] as number) * (d[j] as number);
      }
      const hh = f / (h + h);
      for (let j = 0; j < i; j++) e[j] = (e[j] as number) - hh * (d[j] as number);
      for (let j = 0; j < i; j++) {
        f = d[j] as number;
        g = e[j] as number;
        for (let k = j; k <= i - 1; k++) V[j * n + k] = (V[j * n + k] as number) - (f * (e[k] as number) + g * (d[k] as number));
        d[j] = V[j * n + (i - 1)] as number;
        V[j * n + i] = 0;
      }
    }
    d[i] = h;
  }
  for (let i = 0; i < n - 1; i++) {
    V[i * n + (n - 1)] = V[i * n + i] as number;
    V[i * n + i] = 1;
    const h = d[i + 1] as number;
    if (h !== 0) {
      for (let k = 0; k <= i; k++) d[k] = (V[(i + 1) * n + k] as number) / h;
      for (let j = 0; j <= i; j++) {
        let g = 0;
        for (let k = 0; k <= i; k++) g += (V[(i + 1) * n + k] as number) * (V[j * n + k] as number);
        for (let k = 0; k <= i; k++) V[j * n + k] = (V[j * n + k] as number) - g * (d[k] as number);
      }
    }
    for (let k = 0; k <= i; k++) V[(i + 1) * n + k] = 0;
  }
  for (let j = 0; j < n; j++) {
    d[j] = V[j * n + (n - 1)] as number;
    V[j * n + (n - 1)] = 0;
  }
  V[(n - 1) * n + (n - 1)] = 1;
  e[0] = 0;
}

/** Implicit QL on the tridiagonal (d, e), accumulating into Vᵀ (JAMA's tql2; W = Vᵀ, row-major). */
function tql2(W: Float64Array, d: Float64Array, e: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) e[i - 1] = e[i] as number;
  e[n - 1] = 0;
  let f = 0;
  let tst1 = 0;
  const eps = 2 ** -52;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l] as number) + Math.abs(e[l] as number));
    let m = l;
    while (m < n) {
      if (Math.abs(e[m] as number) <= eps * tst1) break;
      m++;
    }
    if (m > l) {
      for (let iter = 0; iter < 200; iter++) {
        let g = d[l] as number;
        let p = ((d[l + 1] as number) - g) / (2 * (e[l] as number));
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = (e[l] as number) / (p + r);
        d[l + 1] = (e[l] as number) * (p + r);
        const dl1 = d[l + 1] as number;
        let h = g - (d[l] as number);
        for (let i = l + 2; i < n; i++) d[i] = (d[i] as number) - h;
        f += h;
        p = d[m] as number;
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1] as number;
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * (e[i] as number);
          h = c * p;
          r = Math.hypot(p, e[i] as number);
          e[i + 1] = s * r;
          s = (e[i] as number) / r;
          c = p / r;
          p = c * (d[i] as number) - s * g;
          d[i + 1] = h + s * (c * g + s * (d[i] as number));
          const a0 = i * n;
          const a1 = a0 + n;
          for (let k = 0; k < n; k++) {
            h = W[a1 + k] as number;
            W[a1 + k] = s * (W[a0 + k] as number) + c * h;
            W[a0 + k] = c * (W[a0 + k] as number) - s * h;
          }
        }
        p = (-s * s2 * c3 * el1 * (e[l] as number)) / dl1;
        e[l] = s * p;
        d[l] = c * p;
        if (!(Math.abs(e[l] as number) > eps * tst1)) break;
      }
    }
    d[l] = (d[l] as number) + f;
    e[l] = 0;
  }
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
