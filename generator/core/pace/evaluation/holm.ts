/**
 * Holm's step-down correction for a family of m tests: the i-th smallest p (1-based) becomes
 * max over j ≤ i of min(1, (m − j + 1)·p_(j)). It controls the family-wise error rate under any
 * dependence between the tests, which matters here: every method in `evaluate` is compared with
 * the same mean predictor on the same models, so the tests are far from independent.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}
