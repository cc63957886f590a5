/**
 * Ridge regression with intercept in its dual (kernel) form, from a Gram matrix over all pool
 * rows: exact sklearn `Ridge(alpha, fit_intercept=True)` predictions without ever forming the
 * wide weight vector. The penalty is chosen per fold by closed-form leave-one-out on the
 * training models only.
 */
import { symmetricEigen } from './linalg.js';

export function centredTrainKernel(gram: Float64Array, nAll: number, train: Int32Array, test: number): { kc: Float64Array; kt: Float64Array } {
  const centred = centredTrain(gram, nAll, train);
  return { kc: centred.kc, kt: centredTest(gram, nAll, train, test, centred) };
}

function centredTrain(gram: Float64Array, nAll: number, train: Int32Array): { kc: Float64Array; rowMean: Float64Array; total: number } {
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
  values: Float64Array;
  vectors: Float64Array;
  /** Qᵀ(y − ȳ). */
  qty: Float64Array;
  alpha: number;
}

/** `alpha` fixed, or chosen from a scale-aware grid by leave-one-out MSE on the training rows. */
export function fitKernelRidge(gram: Float64Array, nAll: number, train: Int32Array, y: Float64Array, alpha?: number): RidgeFold {
  const n = train.length;
  const { kc, rowMean, total } = centredTrain(gram, nAll, train);
  const { values, vectors } = symmetricEigen(kc, n);
  let ym = 0;
  for (const v of y) ym += v;
  ym /= n;
  const yc = Float64Array.from(y, (v) => v - ym);
  const qty = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += (vectors[i * n + j] as number) * (yc[i] as number);
    qty[j] = s;
  }
  const fold = { train, rowMean, total, ym, values: Float64Array.from(values), vectors: Float64Array.from(vectors), qty, alpha: alpha ?? NaN };
  if (alpha !== undefined) return fold;
  let trace = 0;
  for (let i = 0; i < n; i++) trace += kc[i * n + i] as number;
  const scale = trace / n || 1;
  let best = { alpha: scale, mse: Infinity };
  for (let e = -3; e <= 3; e += 0.5) {
    const a = scale * 10 ** e;
    let mse = 0;
    for (let i = 0; i < n; i++) {
      let fitted = ym;
      let hii = 1 / n;
      for (let j = 0; j < n; j++) {
        const lambda = Math.max(0, values[j] as number);
        const shrink = lambda / (lambda + a);
        const qij = vectors[i * n + j] as number;
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
  let p = fold.ym;
  for (let j = 0; j < n; j++) {
    let t = 0;
    for (let i = 0; i < n; i++) t += (fold.vectors[i * n + j] as number) * (kt[i] as number);
    const lambda = Math.max(0, fold.values[j] as number) + fold.alpha;
    if (lambda > 0) p += (t * (fold.qty[j] as number)) / lambda;
  }
  return p;
}

export function kernelRidge(gram: Float64Array, nAll: number, train: Int32Array, test: number, y: Float64Array, alpha?: number): RidgeResult {
  const fold = fitKernelRidge(gram, nAll, train, y, alpha);
  return { prediction: predictKernelRidge(fold, gram, nAll, test), alpha: fold.alpha };
}
