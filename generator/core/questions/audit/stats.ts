/**
 * The small amount of statistics the audit needs, dependency-free so the audit stays cheap
 * enough to run on every build. Each function is checked against scipy in test/audit.
 */

/** Two-sided standard-normal quantile for a 1 − alpha interval (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError('normalQuantile needs 0 < p < 1');
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1);
}

/**
 * Wilson score interval for a proportion. Chosen over the normal (Wald) interval because
 * audit tasks are often small and accuracies sit near 0 or 1, where Wald collapses.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): [number, number] {
  if (n <= 0) return [0, 1];
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Distribution of the number of successes among independent trials with success
 * probabilities `probabilities` (Poisson-binomial), by direct convolution. Exact; O(n²),
 * which is a few milliseconds for the task sizes a build produces.
 */
export function poissonBinomialPmf(probabilities: readonly number[]): Float64Array {
  let pmf = new Float64Array([1]);
  for (const p of probabilities) {
    const next = new Float64Array(pmf.length + 1);
    for (let k = 0; k < pmf.length; k++) {
      const mass = pmf[k]!;
      next[k] = next[k]! + mass * (1 - p);
      next[k + 1] = next[k + 1]! + mass * p;
    }
    pmf = next;
  }
  return pmf;
}

/** P(X ≥ k) under the Poisson-binomial null. */
export function upperTail(probabilities: readonly number[], k: number): number {
  const pmf = poissonBinomialPmf(probabilities);
  let sum = 0;
  for (let i = Math.max(0, Math.ceil(k)); i < pmf.length; i++) sum += pmf[i]!;
  return Math.min(1, sum);
}

/** P(X ≤ k) under the Poisson-binomial null. */
export function lowerTail(probabilities: readonly number[], k: number): number {
  const pmf = poissonBinomialPmf(probabilities);
  let sum = 0;
  for (let i = 0; i <= Math.min(pmf.length - 1, Math.floor(k)); i++) sum += pmf[i]!;
  return Math.min(1, sum);
}

/** ln Γ(x) by the Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 for x > 0. */
export function logGamma(x: number): number {
  const coefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const xm = x - 1;
  let a = coefficients[0]!;
  const t = xm + 7.5;
  for (let i = 1; i < 9; i++) a += coefficients[i]! / (xm + i);
  return 0.5 * Math.log(2 * Math.PI) + (xm + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularised upper incomplete gamma Q(s, x) (series below s+1, continued fraction above). */
export function gammaQ(s: number, x: number): number {
  if (x <= 0) return 1;
  if (x < s + 1) {
    let term = 1 / s;
    let sum = term;
    for (let n = 1; n < 1000; n++) {
      term *= x / (s + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return Math.max(0, 1 - sum * Math.exp(-x + s * Math.log(x) - logGamma(s)));
  }
  // Modified Lentz continued fraction.
  const tiny = 1e-300;
  let b = x + 1 - s;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - s);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return Math.min(1, Math.exp(-x + s * Math.log(x) - logGamma(s)) * h);
}

/** Survival function of the chi-square distribution with `df` degrees of freedom. */
export function chiSquareSf(statistic: number, df: number): number {
  if (df <= 0) return 1;
  return gammaQ(df / 2, statistic / 2);
}

/** Pearson goodness-of-fit: Σ (O−E)²/E over cells with E > 0; df = cells − 1. */
export function chiSquareGoodnessOfFit(observed: readonly number[], expected: readonly number[]): { statistic: number; df: number; pValue: number } {
  let statistic = 0;
  let cells = 0;
  observed.forEach((o, i) => {
    const e = expected[i] ?? 0;
    if (e > 0) {
      statistic += ((o - e) * (o - e)) / e;
      cells++;
    }
  });
  const df = Math.max(0, cells - 1);
  return { statistic, df, pValue: df > 0 ? chiSquareSf(statistic, df) : 1 };
}
