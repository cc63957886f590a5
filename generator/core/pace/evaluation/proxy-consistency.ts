/**
 * Does a checkpoint's proxy score agree with the rest of its scores?
 *
 * The shipped predictor reads the proxy items alone, and they are public (the proxy suite holds
 * them). A checkpoint that has seen them in training, or was tuned on them, answers them far
 * better than its ability elsewhere, and its prediction follows the proxy items. Over the training
 * models the proxy mean is close to a line in the mean over the proxy items' twins (the yardstick:
 * for each proxy item the other source item that tracks it most closely across the pool); a checkpoint whose proxy mean lies above that line by
 * more than any training model does (leave-one-out, times `consistencyTolerance`) and by more than
 * its own item draws explain (`rangeNoiseZ` standard errors of the difference) cannot be vouched
 * for. Only the side that would flatter the checkpoint is tested: a proxy score below the line
 * lowers the prediction, and the threshold then fails on its own.
 *
 * The check needs the yardstick items in the checkpoint's logs (a run of the full suite); a run
 * of the proxy suite alone does not hold them, and the forecast then says it was not made.
 */
import { hashSeed } from '../../kernel/rng.js';
import type { PaceData } from '../types.js';
import { itemVariance, rangeNoiseZ } from './range-noise.js';
import { dot4 } from '../numerics/kernels.js';

export interface ProxyConsistency {
  /** Keys of the yardstick: one twin per proxy item, source instances of the pool that are no target's proxy item. */
  instances: string[];
  /** proxy mean ≈ intercept + slope · yardstick mean, by least squares over the training models. */
  intercept: number;
  slope: number;
  /** Largest leave-one-out residual (proxy mean above the line) among the training models. */
  threshold: number;
}

/** Non-proxy columns searched for twins: a fixed sample, so the search stays cheap at 100,000 instances. */
export const twinCandidates = 4000;
/** As the leverage guard's margin: a new model exchangeable with the pool rarely exceeds its largest LOO residual by this much. */
export const consistencyTolerance = 1.25;
/** The checkpoint must hold at least this share of the yardstick for the check to be made. */
export const consistencyMinShare = 0.5;

/**
 * The yardstick and line for one target: for each of its proxy items (`targetCols`) the twin,
 * the non-proxy column (none of `allProxyCols`) whose scores over the training models (pool
 * rows) correlate most with it, each twin used once. Twins load on the abilities their proxy
 * item loads on, so a model strong where the proxy items are (a specialist) is strong on the
 * twins too, while answers learnt for the proxy items themselves do not carry over. Null with
 * too few models (under 5) or no column to twin with.
 */
export function proxyConsistency(data: PaceData, poolRows: Int32Array, allProxyCols: Int32Array, targetCols: Int32Array, proxyMeans: Float64Array): ProxyConsistency | null {
  const n = poolRows.length;
  const v = data.view;
  const width = v.cols ? v.cols.length : v.stride;
  if (n < 5 || targetCols.length === 0) return null;
  const proxy = new Set(allProxyCols);
  // Candidates in the order of a hash of their key: the sample does not move with the seed, and
  // a few added instances move few of its members.
  // Each candidate as one number, hash · 2²¹ + column (exact below 2⁵³ for up to 2²¹ columns),
  // so a plain numeric sort orders them by hash, then column, with no comparator.
  if (width > columnSpan) throw new Error(`proxyConsistency: ${width} columns exceed ${columnSpan}`);
  const keyed: number[] = [];
  for (let c = 0; c < width; c++) if (!proxy.has(c)) keyed.push(hashSeed(`consistency/${data.instances[c]!.key}`) * columnSpan + c);
  if (keyed.length === 0) return null;
  const sortedKeys = Float64Array.from(keyed).sort();
  const candidates = Array.from(sortedKeys.subarray(0, twinCandidates), (k) => k % columnSpan).sort((a, b) => a - b);
  const standardised = (cols: readonly number[]) => {
    const out = new Float64Array(cols.length * n);
    // Gathered row by row (the columns ascending, so each row is read forwards), stored by column.
    for (let i = 0; i < n; i++) {
      const base = (v.rows[poolRows[i] as number] as number) * v.stride;
      for (let j = 0; j < cols.length; j++) {
        const c = cols[j] as number;
        out[j * n + i] = v.data[base + (v.cols ? (v.cols[c] as number) : c)] as number;
      }
    }
    cols.forEach((_, j) => {
      const col = out.subarray(j * n, (j + 1) * n);
      let mean = 0;
      for (let i = 0; i < n; i++) mean += col[i]! / n;
      let ss = 0;
      for (let i = 0; i < n; i++) ss += (col[i]! - mean) ** 2;
      const sd = Math.sqrt(ss) || 1;
      for (let i = 0; i < n; i++) col[i] = (col[i]! - mean) / sd;
    });
    return out;
  };
  const zc = standardised(candidates);
  const targets = [...targetCols].sort((a, b) => a - b);
  const zp = standardised(targets);
  const used = new Uint8Array(candidates.length);
  const twins: number[] = [];
  const dots = new Float64Array(candidates.length);
  for (let p = 0; p < targets.length; p++) {
    twinDots(zp, p * n, zc, n, dots);
    let best = -1;
    let bestR = -Infinity;
    for (let j = 0; j < candidates.length; j++) {
      if (used[j]) continue;
      const r = dots[j]!;
      if (r > bestR) {
        bestR = r;
        best = j;
      }
    }
    if (best < 0) break;
    used[best] = 1;
    twins.push(candidates[best]!);
  }
  twins.sort((a, b) => a - b);
  const yard = Float64Array.from(poolRows, (r) => {
    const base = (v.rows[r] as number) * v.stride;
    let sum = 0;
    for (const c of twins) sum += v.data[base + (v.cols ? (v.cols[c] as number) : c)] as number;
    return sum / twins.length;
  });
  const line = leastSquaresLine(yard, proxyMeans);
  return { instances: twins.map((c) => data.instances[c]!.key), intercept: line.intercept, slope: line.slope, threshold: Math.max(0, ...line.looResiduals) };
}

/** Columns a candidate's packed sort key can tell apart (see proxyConsistency). */
const columnSpan = 2 ** 21;

/** dots[j] = Σ_i zp[p0 + i]·zc[j·n + i], i ascending (each sum in the one-at-a-time order), four candidates per pass. */
function twinDots(zp: Float64Array, p0: number, zc: Float64Array, n: number, dots: Float64Array): void {
  const m = dots.length;
  const four = new Float64Array(4);
  let j = 0;
  for (; j + 4 <= m; j += 4) {
    dot4(zp, p0, zc, j * n, n, four);
    dots.set(four, j);
  }
  for (; j < m; j++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += zp[p0 + i]! * zc[j * n + i]!;
    dots[j] = s;
  }
}

/** y ≈ a + b·x with each point's leave-one-out residual y_i − ŷ_(−i) = e_i / (1 − h_ii). */
export function leastSquaresLine(x: ArrayLike<number>, y: ArrayLike<number>): { intercept: number; slope: number; looResiduals: number[] } {
  const n = x.length;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += (x[i] as number) / n;
    my += (y[i] as number) / n;
  }
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += ((x[i] as number) - mx) ** 2;
    sxy += ((x[i] as number) - mx) * ((y[i] as number) - my);
  }
  const slope = sxx > 0 ? sxy / sxx : 0;
  const intercept = my - slope * mx;
  const looResiduals = Array.from({ length: n }, (_, i) => {
    const h = 1 / n + (sxx > 0 ? ((x[i] as number) - mx) ** 2 / sxx : 0);
    const e = (y[i] as number) - intercept - slope * (x[i] as number);
    return h < 1 ? e / (1 - h) : e;
  });
  return { intercept, slope, looResiduals };
}

export interface ConsistencyReading {
  /** Whether the checkpoint's logs held enough of the yardstick to make the check. */
  checked: boolean;
  /** Yardstick items the checkpoint has, of the model file's. */
  observed: number;
  total: number;
  /** Proxy mean, what the line expects from the yardstick mean, and the difference's standard error. */
  proxyMean?: number;
  expected?: number;
  standardError?: number;
  /** The proxy mean lies above the line beyond the pool's spread and the checkpoint's own noise. */
  inconsistent: boolean;
}

/** Reads one checkpoint against the yardstick: `proxyMean` over `proxySeen` proxy items. */
export function readConsistency(c: ProxyConsistency, scores: Map<string, number>, proxyMean: number, proxySeen: number): ConsistencyReading {
  let sum = 0;
  let observed = 0;
  for (const k of c.instances) {
    const s = scores.get(k);
    if (s === undefined || !Number.isFinite(s)) continue;
    sum += s;
    observed++;
  }
  const total = c.instances.length;
  if (observed < Math.max(1, consistencyMinShare * total) || proxySeen === 0) return { checked: false, observed, total, inconsistent: false };
  const yard = sum / observed;
  const expected = c.intercept + c.slope * yard;
  const standardError = Math.sqrt(itemVariance(proxyMean) / proxySeen + c.slope ** 2 * (itemVariance(yard) / observed));
  const above = proxyMean - expected;
  const inconsistent = above > consistencyTolerance * c.threshold && above > rangeNoiseZ * standardError;
  return { checked: true, observed, total, proxyMean, expected, standardError, inconsistent };
}
