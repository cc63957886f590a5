/**
 * Ridge regression with intercept in its dual (kernel) form, from a Gram matrix over all pool
 * rows: exact sklearn `Ridge(alpha, fit_intercept=True)` predictions without ever forming the
 * wide weight vector. The penalty is chosen per fold by closed-form leave-one-out on the
 * training models only.
 */
import { symmetricEigen } from './linalg.js';

export function centredTrainKernel(gram: Float64Array, nAll: number, train: Int32Array, test: number): { kc: Float64Array; kt: Float64Array } {
  const centred = centredTrain(gram, nAll, train);
  return { kc: centred.kc!, kt: centredTest(gram, nAll, train, test, centred) };
}

function centredTrain(gram: Float64Array, nAll: number, train: Int32Array, withKernel = true): { kc: Float64Array | null; rowMean: Float64Array; total: number } {
  const n = train.length;
  const rowMean = new Float64Array(n);
  let total = 0;
  for (let a = 0; a < n; a++) {
    let s = 0;
    for (let b = 0; b < n; b++) s += gram[(train[a] as number) * nAll + (train[b] as number)] as number;
    rowMean[a] = s / n;
    total += s;
  }
  total /= n * n;
  if (!withKernel) return { kc: null, rowMean, total };
  const kc = new Float64Array(n * n);
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) kc[a * n + b] = (gram[(train[a] as number) * nAll + (train[b] as number)] as number) - (rowMean[a] as number) - (rowMean[b] as number) + total;
  return { kc, rowMean, total };
}

function centredTest(gram: Float64Array, nAll: number, train: Int32Array, test: number, c: { rowMean: Float64Array; total: number }): Float64Array {
  const n = train.length;
  let testMean = 0;
  for (let b = 0; b < n; b++) testMean += gram[test * nAll + (train[b] as number)] as number;
  testMean /= n;
  const kt = new Float64Array(n);
  for (let b = 0; b < n; b++) kt[b] = (gram[test * nAll + (train[b] as number)] as number) - testMean - (c.rowMean[b] as number) + c.total;
  return kt;
}

export interface RidgeResult {
  prediction: number;
  alpha: number;
}

/** Everything of a ridge fit that depends on the training rows only: one per fold, any number of test rows. */
export interface RidgeFold {
  train: Int32Array;
  rowMean: Float64Array;
  total: number;
  ym: number;
  /** Eigenpairs of the centred training kernel kept: `rank` of them (n, or the feature route's nonzero ones). */
  rank: number;
  values: Float64Array;
  /** n × rank, row-major: column j is the j-th eigenvector. */
  vectors: Float64Array;
  /** Qᵀ(y − ȳ). */
  qty: Float64Array;
  alpha: number;
}

/**
 * The Gram matrix's features (nAll × width, row-major) when it is their product F·Fᵀ with far
 * fewer features than training rows (`benchmark-means`: one per source benchmark): the centred
 * kernel then has at most `width` nonzero eigenvalues, found from the width × width matrix
 * F_cᵀF_c instead of the n × n kernel. Eigenvalues that are zero add nothing to a fit or a
 * prediction (their shrinkage is 0, and a test row's centred kernel lies in F_c's column
 * space), so the fit is the same up to rounding.
 */
export interface RidgeFeatures {
  data: Float64Array;
  width: number;
}

interface CentredEigen {
  rank: number;
  values: Float64Array;
  vectors: Float64Array;
  /** Trace of the centred kernel (the penalty grid's scale). */
  trace: number;
}

/** All n eigenpairs of the centred training kernel `kc` (n × n). */
function kernelEigen(kc: Float64Array, n: number): CentredEigen {
  const { values, vectors } = symmetricEigen(kc, n);
  let trace = 0;
  for (let i = 0; i < n; i++) trace += kc[i * n + i] as number;
  return { rank: n, values: Float64Array.from(values), vectors: Float64Array.from(vectors), trace };
}

/** The nonzero eigenpairs of the centred training kernel F_c·F_cᵀ, from the width × width F_cᵀF_c. */
function featureEigen(features: RidgeFeatures, train: Int32Array): CentredEigen {
  const n = train.length;
  const w = features.width;
  const fc = new Float64Array(n * w);
  const mean = new Float64Array(w);
  for (let a = 0; a < n; a++) for (let t = 0; t < w; t++) mean[t] = (mean[t] as number) + (features.data[(train[a] as number) * w + t] as number) / n;
  for (let a = 0; a < n; a++) for (let t = 0; t < w; t++) fc[a * w + t] = (features.data[(train[a] as number) * w + t] as number) - (mean[t] as number);
  const c = new Float64Array(w * w);
  for (let a = 0; a < n; a++) for (let p = 0; p < w; p++) for (let q = 0; q < w; q++) c[p * w + q] = (c[p * w + q] as number) + (fc[a * w + p] as number) * (fc[a * w + q] as number);
  const eig = symmetricEigen(c, w);
  let trace = 0;
  for (let t = 0; t < w; t++) trace += c[t * w + t] as number;
  // Components at the rounding floor of F_cᵀF_c would be divided by a σ that is noise.
  const top = Math.max(0, eig.values[0] ?? 0);
  let rank = 0;
  while (rank < w && (eig.values[rank] as number) > (n + w) * Number.EPSILON * top) rank++;
  const values = Float64Array.from(eig.values.subarray(0, rank));
  // U = F_c·V·Σ⁻¹: the kernel's eigenvectors for the same eigenvalues.
  const vectors = new Float64Array(n * rank);
  for (let j = 0; j < rank; j++) {
    const sigma = Math.sqrt(values[j] as number);
    for (let a = 0; a < n; a++) {
      let s = 0;
      for (let t = 0; t < w; t++) s += (fc[a * w + t] as number) * (eig.vectors[t * w + j] as number);
      vectors[a * rank + j] = s / sigma;
    }
  }
  return { rank, values, vectors, trace };
}

/** `alpha` fixed, or chosen from a scale-aware grid by leave-one-out MSE on the training rows. */
export function fitKernelRidge(gram: Float64Array, nAll: number, train: Int32Array, y: Float64Array, alpha?: number, features?: RidgeFeatures): RidgeFold {
  const n = train.length;
  // Few features (under half the training rows): their small matrix, and no n × n kernel at all.
  const few = features !== undefined && 2 * features.width < n ? features : null;
  const { kc, rowMean, total } = centredTrain(gram, nAll, train, few === null);
  const { rank, values, vectors, trace } = few ? featureEigen(few, train) : kernelEigen(kc!, n);
  let ym = 0;
  for (const v of y) ym += v;
  ym /= n;
  const yc = Float64Array.from(y, (v) => v - ym);
  const qty = new Float64Array(rank);
  for (let j = 0; j < rank; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += (vectors[i * rank + j] as number) * (yc[i] as number);
    qty[j] = s;
  }
  const fold = { train, rowMean, total, ym, rank, values, vectors, qty, alpha: alpha ?? NaN };
  if (alpha !== undefined) return fold;
  const scale = trace / n || 1;
  let best = { alpha: scale, mse: Infinity };
  for (let e = -3; e <= 3; e += 0.5) {
    const a = scale * 10 ** e;
    let mse = 0;
    for (let i = 0; i < n; i++) {
      let fitted = ym;
      let hii = 1 / n;
      for (let j = 0; j < rank; j++) {
        const lambda = Math.max(0, values[j] as number);
        const shrink = lambda / (lambda + a);
        const qij = vectors[i * rank + j] as number;
        fitted += shrink * qij * (qty[j] as number);
        hii += shrink * qij * qij;
      }
      mse += (((y[i] as number) - fitted) / (1 - hii)) ** 2;
    }
    if (mse < best.mse * (1 - 1e-12)) best = { alpha: a, mse };
  }
  return { ...fold, alpha: best.alpha };
}

export function predictKernelRidge(fold: RidgeFold, gram: Float64Array, nAll: number, test: number): number {
  const n = fold.train.length;
  const kt = centredTest(gram, nAll, fold.train, test, fold);
  const rank = fold.rank;
  let p = fold.ym;
  for (let j = 0; j < rank; j++) {
    let t = 0;
    for (let i = 0; i < n; i++) t += (fold.vectors[i * rank + j] as number) * (kt[i] as number);
    const lambda = Math.max(0, fold.values[j] as number) + fold.alpha;
    if (lambda > 0) p += (t * (fold.qty[j] as number)) / lambda;
  }
  return p;
}

export function kernelRidge(gram: Float64Array, nAll: number, train: Int32Array, test: number, y: Float64Array, alpha?: number, features?: RidgeFeatures): RidgeResult {
  const fold = fitKernelRidge(gram, nAll, train, y, alpha, features);
  return { prediction: predictKernelRidge(fold, gram, nAll, test), alpha: fold.alpha };
}
