/**
 * Least squares with an intercept and non-negative weights, min ‖y − b − Xw‖² s.t. w ≥ 0, by
 * cyclic coordinate descent on the centred problem (the intercept is free, so centring removes
 * it exactly). The problem is convex, so coordinate descent with projection reaches the same
 * optimum as Lawson–Hanson (scipy.optimize.nnls on centred data), to the tolerance; the inputs
 * here are a handful of benchmark features over tens of models.
 */
export interface NnlsFit {
  weights: Float64Array;
  intercept: number;
  sweeps: number;
}

/** `x` is column-major (p × n): x[j*n + i]. */
export function nonNegativeLeastSquares(x: Float64Array, n: number, p: number, y: Float64Array, tol = 1e-14, maxSweeps = 100_000): NnlsFit {
  const xm = new Float64Array(p);
  const xc = new Float64Array(p * n);
  const norms = new Float64Array(p);
  let ym = 0;
  for (let i = 0; i < n; i++) ym += (y[i] as number) / n;
  for (let j = 0; j < p; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += x[j * n + i] as number;
    xm[j] = s / n;
    for (let i = 0; i < n; i++) {
      const v = (x[j * n + i] as number) - s / n;
      xc[j * n + i] = v;
      norms[j] = (norms[j] as number) + v * v;
    }
  }
  const w = new Float64Array(p);
  const r = Float64Array.from(y, (v) => v - ym);
  let scale = 0;
  for (const v of r) scale += v * v;
  let sweeps = 0;
  for (; sweeps < maxSweeps; sweeps++) {
    let change = 0;
    for (let j = 0; j < p; j++) {
      const nj = norms[j] as number;
      // A feature constant over the training models carries nothing: its weight stays 0.
      if (nj <= 1e-300) continue;
      let g = 0;
      for (let i = 0; i < n; i++) g += (xc[j * n + i] as number) * (r[i] as number);
      const next = Math.max(0, (w[j] as number) + g / nj);
      const d = next - (w[j] as number);
      if (d === 0) continue;
      for (let i = 0; i < n; i++) r[i] = (r[i] as number) - d * (xc[j * n + i] as number);
      w[j] = next;
      change = Math.max(change, d * d * nj);
    }
    if (change <= tol * Math.max(scale, 1e-300)) break;
  }
  let intercept = ym;
  for (let j = 0; j < p; j++) intercept -= (w[j] as number) * (xm[j] as number);
  return { weights: w, intercept, sweeps: sweeps + 1 };
}
