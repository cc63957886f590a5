/**
 * The logistic fit's Newton pass takes eight rows per sweep of the Hessian's triangle and solves
 * chord steps against one kept elimination. Both must give what the plain method gives to the
 * bit (the build's output depends on every score): here the plain method is written out row by
 * row, with a fresh elimination of the augmented system every step, and compared on sizes that
 * are not multiples of eight, cold and from a warm start with a kept curvature.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { fitLogisticFlat, type LogisticCurvature } from '../../generator/core/questions/audit/ranker.js';

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));
const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

function solvePlain(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]!;
    if (Math.abs(p) < 1e-14) continue;
    for (let r = col + 1; r < n; r++) {
      const f = m[r]![col]! / p;
      if (f === 0) continue;
      for (let cc = col; cc <= n; cc++) m[r]![cc]! -= f * m[col]![cc]!;
    }
  }
  const out = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    const p = m[r]![r]!;
    if (Math.abs(p) < 1e-14) continue;
    let s = m[r]![n]!;
    for (let cc = r + 1; cc < n; cc++) s -= m[r]![cc]! * out[cc]!;
    out[r] = s / p;
  }
  return out;
}

/** The method as documented, one row at a time. */
function fitPlain(rows: Float64Array, d: number, y: Uint8Array, maxIterations: number, start?: number[], curvature?: LogisticCurvature) {
  const D = d + 1;
  const n = y.length;
  const dot = (v: readonly number[], i: number) => {
    let s = 0;
    for (let j = 0; j < d; j++) s += v[j]! * rows[i * D + j]!;
    return s + v[d]!;
  };
  const objective = (v: readonly number[]) => {
    let loss = 0;
    for (let j = 0; j < d; j++) loss += 0.5 * v[j]! * v[j]!;
    for (let i = 0; i < n; i++) loss += softplus(y[i] ? -dot(v, i) : dot(v, i));
    return loss;
  };
  const warm = start !== undefined;
  const w = warm ? [...start] : new Array<number>(D).fill(0);
  const given = warm && curvature !== undefined && curvature.rows > 0;
  let current = objective(w);
  let iterations = 0;
  const hessian = new Float64Array(D * D);
  if (given) {
    const scale = n / curvature.rows;
    for (let k = 0; k < D * D; k++) hessian[k] = scale * curvature.hessian[k]!;
    for (let j = 0; j < d; j++) hessian[j * D + j]! += 1 - scale;
  }
  let sinceFresh = given ? 0 : 8;
  for (; iterations < maxIterations; iterations++) {
    const gradient = new Array<number>(D).fill(0);
    const fresh = !warm || sinceFresh >= 8;
    sinceFresh = fresh ? 1 : sinceFresh + 1;
    if (fresh) hessian.fill(0);
    for (let j = 0; j < d; j++) {
      gradient[j] = w[j]!;
      if (fresh) hessian[j * D + j] = 1;
    }
    for (let i = 0; i < n; i++) {
      const p = sigmoid(dot(w, i));
      for (let a = 0; a < D; a++) gradient[a]! += (p - y[i]!) * rows[i * D + a]!;
      if (!fresh) continue;
      for (let a = 0; a < D; a++) {
        const ca = p * (1 - p) * rows[i * D + a]!;
        for (let b = 0; b <= a; b++) hessian[a * D + b]! += ca * rows[i * D + b]!;
      }
    }
    const step = solvePlain(Array.from({ length: D }, (_, a) => Array.from({ length: D }, (_, b) => (b <= a ? hessian[a * D + b]! : hessian[b * D + a]!))), gradient);
    let scale = 1;
    let next = w.map((v, j) => v - step[j]!);
    let value = objective(next);
    while (value > current && scale > 1e-6) {
      scale /= 2;
      next = w.map((v, j) => v - scale * step[j]!);
      value = objective(next);
    }
    const moved = Math.max(...step.map((s) => Math.abs(s * scale)));
    w.splice(0, D, ...next);
    const improvement = current - value;
    current = value;
    if (moved < 1e-10 || improvement < 1e-12 * Math.max(1, Math.abs(current))) {
      iterations++;
      break;
    }
  }
  if (curvature) {
    curvature.hessian = hessian;
    curvature.rows = n;
  }
  return { w, iterations };
}

function data(n: number, d: number, seed: string) {
  const r = new Rng(seed);
  const D = d + 1;
  const rows = new Float64Array(n * D);
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let z = 0;
    for (let j = 0; j < d; j++) {
      // Integer ranks, exact zeros (a constant column standardised) and reals, as the learners' views have.
      const v = j % 3 === 1 ? r.int(4) / 3 : j % 5 === 0 ? 0 : 2 * r.next() - 1;
      rows[i * D + j] = v;
      z += v * (j < 4 ? 1.2 : 0.05);
    }
    rows[i * D + d] = 1;
    y[i] = r.next() < sigmoid(z) ? 1 : 0;
  }
  return { rows, y };
}

describe('logistic fit: blocked Newton pass and kept elimination', () => {
  it.each([
    [803, 31],
    [413, 96],
    [13, 5],
    [7, 3],
  ])('gives the row-by-row method to the bit (%i rows, %i columns)', (n, d) => {
    const { rows, y } = data(n, d, `exact-${n}-${d}`);
    const cold = fitLogisticFlat(rows, d, y, 1, 25);
    const plain = fitPlain(rows, d, y, 25);
    expect([...cold.weights, cold.intercept]).toEqual(plain.w);
    expect(cold.iterations).toBe(plain.iterations);
    // Warm, from a start away from the optimum (so chord steps run and the Hessian is renewed) with a kept curvature.
    const start = plain.w.map((v, j) => v * 0.3 + 0.01 * (j % 5));
    const kept = { hessian: new Float64Array(0), rows: 0 };
    const keptPlain = { hessian: new Float64Array(0), rows: 0 };
    fitLogisticFlat(rows.subarray(0, Math.floor(n / 2) * (d + 1)), d, y.subarray(0, Math.floor(n / 2)), 1, 25, start, kept);
    fitPlain(rows.subarray(0, Math.floor(n / 2) * (d + 1)), d, y.subarray(0, Math.floor(n / 2)), 25, start, keptPlain);
    expect([...kept.hessian]).toEqual([...keptPlain.hessian]);
    const warm = fitLogisticFlat(rows, d, y, 1, 25, start, kept);
    const warmPlain = fitPlain(rows, d, y, 25, start, keptPlain);
    expect([...warm.weights, warm.intercept]).toEqual(warmPlain.w);
    expect(warm.iterations).toBe(warmPlain.iterations);
    expect(warm.iterations).toBeGreaterThan(1);
  });
});
