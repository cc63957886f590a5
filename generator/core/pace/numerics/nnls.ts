/**
 * Least squares with an intercept and non-negative weights, min ‖y − b − Xw‖² s.t. w ≥ 0: the
 * intercept is free, so centring removes it exactly, and the centred problem is solved by
 * Lawson–Hanson's active-set method (scipy.optimize.nnls) on its normal equations. The inputs
 * here are a handful of benchmark features over tens of models, so the p × p normal equations
 * are small and the active set is found exactly (no iterative tolerance on the weights).
 */
export interface NnlsFit {
  weights: Float64Array;
  intercept: number;
  /** Outer iterations (variables added to the active set). */
  iterations: number;
}

/** Solves G[P,P]·z = c[P] by Gaussian elimination with partial pivoting; null when singular. */
function solveOn(g: Float64Array, c: Float64Array, p: number, set: number[]): Float64Array | null {
  const m = set.length;
  const a = new Float64Array(m * (m + 1));
  set.forEach((i, r) => {
    set.forEach((j, s) => (a[r * (m + 1) + s] = g[i * p + j] as number));
    a[r * (m + 1) + m] = c[i] as number;
  });
  for (let col = 0; col < m; col++) {
    let piv = col;
    for (let r = col + 1; r < m; r++) if (Math.abs(a[r * (m + 1) + col] as number) > Math.abs(a[piv * (m + 1) + col] as number)) piv = r;
    if (Math.abs(a[piv * (m + 1) + col] as number) < 1e-300) return null;
    if (piv !== col) for (let s = 0; s <= m; s++) [a[col * (m + 1) + s], a[piv * (m + 1) + s]] = [a[piv * (m + 1) + s] as number, a[col * (m + 1) + s] as number];
    for (let r = col + 1; r < m; r++) {
      const f = (a[r * (m + 1) + col] as number) / (a[col * (m + 1) + col] as number);
      if (f !== 0) for (let s = col; s <= m; s++) a[r * (m + 1) + s] = (a[r * (m + 1) + s] as number) - f * (a[col * (m + 1) + s] as number);
    }
  }
  const z = new Float64Array(m);
  for (let r = m - 1; r >= 0; r--) {
    let s = a[r * (m + 1) + m] as number;
    for (let q = r + 1; q < m; q++) s -= (a[r * (m + 1) + q] as number) * (z[q] as number);
    z[r] = s / (a[r * (m + 1) + r] as number);
  }
  return z;
}

/** `x` is column-major (p × n): x[j*n + i]. */
export function nonNegativeLeastSquares(x: Float64Array, n: number, p: number, y: Float64Array): NnlsFit {
  const xm = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    for (let i = 0; i < n; i++) xm[j] = (xm[j] as number) + (x[j * n + i] as number) / n;
  }
  let ym = 0;
  for (let i = 0; i < n; i++) ym += (y[i] as number) / n;
  // Normal equations of the centred problem: G = XcᵀXc, c = Xcᵀ(y − ȳ).
  const g = new Float64Array(p * p);
  const c = new Float64Array(p);
  for (let j = 0; j < p; j++) {
    for (let i = 0; i < n; i++) c[j] = (c[j] as number) + ((x[j * n + i] as number) - (xm[j] as number)) * ((y[i] as number) - ym);
    for (let k = 0; k <= j; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += ((x[j * n + i] as number) - (xm[j] as number)) * ((x[k * n + i] as number) - (xm[k] as number));
      g[j * p + k] = s;
      g[k * p + j] = s;
    }
  }
  const scale = Math.max(1e-300, ...Array.from(c, Math.abs), ...Array.from({ length: p }, (_, j) => g[j * p + j] as number));
  const tol = 1e-12 * scale;
  const w = new Float64Array(p);
  const active = new Set<number>();
  const gradient = (j: number) => {
    let s = c[j] as number;
    for (let k = 0; k < p; k++) s -= (g[j * p + k] as number) * (w[k] as number);
    return s;
  };
  let iterations = 0;
  for (; iterations < 3 * p + 10; iterations++) {
    let best = -1;
    let bestGrad = tol;
    // A feature constant over the training models (zero diagonal) carries nothing and stays at 0.
    for (let j = 0; j < p; j++) if (!active.has(j) && (g[j * p + j] as number) > tol * 1e-6 && gradient(j) > bestGrad) [best, bestGrad] = [j, gradient(j)];
    if (best < 0) break;
    active.add(best);
    for (;;) {
      const set = [...active].sort((a, b) => a - b);
      const z = solveOn(g, c, p, set);
      if (!z) {
        active.delete(best);
        break;
      }
      if (z.every((v) => v > 0)) {
        w.fill(0);
        set.forEach((j, r) => (w[j] = z[r] as number));
        break;
      }
      // Step from w towards z until the first weight reaches 0; those leave the active set.
      let alpha = 1;
      set.forEach((j, r) => {
        const zj = z[r] as number;
        if (zj <= 0) alpha = Math.min(alpha, (w[j] as number) / ((w[j] as number) - zj));
      });
      set.forEach((j, r) => (w[j] = (w[j] as number) + alpha * ((z[r] as number) - (w[j] as number))));
      for (const j of set) if ((w[j] as number) <= 0) {
        w[j] = 0;
        active.delete(j);
      }
      if (active.size === 0) break;
    }
  }
  let intercept = ym;
  for (let j = 0; j < p; j++) intercept -= (w[j] as number) * (xm[j] as number);
  return { weights: w, intercept, iterations };
}
