/**
 * Gradient-boosted regression trees for binary log-loss, on histogram bins — the model family of
 * scikit-learn's `HistGradientBoostingClassifier`, kept small: features are cut into at most
 * `bins` quantile bins on the training rows, each tree is grown depth-first to `maxDepth` with
 * Newton leaf values and an L2 penalty, and `rounds` trees are added with shrinkage. Deterministic:
 * no sampling, ties in split gain go to the lower feature and bin.
 *
 * It is written here because the adversary fits it hundreds of times per build: mljs's
 * `ml-random-forest` took 0.17 s per tree on 540 rows (86 s for one cross-fit of 100 trees), while
 * this fits a whole model on the same rows in a few milliseconds.
 */

export interface BoostOptions {
  rounds: number;
  maxDepth: number;
  learningRate: number;
  /** L2 penalty on leaf values (scikit-learn's `l2_regularization`). */
  l2: number;
  /** Leaves hold at least this many rows. */
  minLeaf: number;
  bins: number;
}

export const DEFAULT_BOOST: BoostOptions = { rounds: 60, maxDepth: 3, learningRate: 0.1, l2: 1, minLeaf: 10, bins: 16 };

type Node = { leaf: number } | { feature: number; threshold: number; left: Node; right: Node };

export interface BoostedModel {
  base: number;
  trees: Node[];
  learningRate: number;
  /** The same trees flattened into typed arrays, for prediction (flattenTrees). */
  flat: FlatTrees;
}

/**
 * Trees in arrays: node n is a leaf when feature[n] < 0 (its value in value[n]), else it sends a
 * row to left[n] when row[feature[n]] ≤ threshold[n], to left[n] + 1 otherwise (a node's children
 * are stored side by side). roots[t] is tree t's root.
 */
interface FlatTrees {
  roots: Int32Array;
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  value: Float64Array;
}

/** Fits the model to rows `x` with labels `y` in {0, 1}. */
export function fitBoosted(x: readonly (readonly number[])[], y: readonly number[], options: BoostOptions = DEFAULT_BOOST): BoostedModel {
  const d = x[0]?.length ?? 0;
  const flat = new Float64Array(x.length * d);
  x.forEach((row, i) => {
    for (let j = 0; j < d; j++) flat[i * d + j] = row[j]!;
  });
  return fitBoostedFlat(flat, d, y, options);
}

/** The same fit on rows given flat: row i's feature j at x[i·d + j]. */
export function fitBoostedFlat(x: Float64Array, d: number, y: ArrayLike<number>, options: BoostOptions = DEFAULT_BOOST): BoostedModel {
  const n = y.length;
  let positive = 0;
  for (let i = 0; i < n; i++) positive += y[i]!;
  const p0 = Math.min(1 - 1e-6, Math.max(1e-6, positive / Math.max(1, n)));
  const base = Math.log(p0 / (1 - p0));
  const column = new Float64Array(n);
  const thresholds = Array.from({ length: d }, (_, j) => {
    for (let i = 0; i < n; i++) column[i] = x[i * d + j]!;
    return cutPoints(column, options.bins);
  });
  // Bins by column (bin b holds values ≤ thresholds[b], the last bin the rest): a split reads one
  // feature's bins for a node's rows. The histograms read each row's slots below instead.
  const binned = options.bins < 256 ? new Uint8Array(n * d) : new Uint16Array(n * d);
  for (let j = 0; j < d; j++) for (let i = 0; i < n; i++) binned[j * n + i] = binOf(x[i * d + j]!, thresholds[j]!);
  // Each row's places in the interleaved histogram, so the histogram's inner loop only adds. A
  // split reads a feature's bins below its last one only (a feature without cut points: none), so
  // a row in a feature's last bin adds nothing there that is ever read, and has no entry for it.
  const stride = options.bins + 1;
  const starts = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let used = 0;
    for (let j = 0; j < d; j++) if (binned[j * n + i]! < thresholds[j]!.length) used++;
    starts[i + 1] = starts[i]! + used;
  }
  const slots = 3 * d * stride < 65536 ? new Uint16Array(starts[n]!) : new Uint32Array(starts[n]!);
  for (let i = 0, at = 0; i < n; i++) for (let j = 0; j < d; j++) if (binned[j * n + i]! < thresholds[j]!.length) slots[at++] = 3 * (j * stride + binned[j * n + i]!);
  const size = 3 * d * (options.bins + 1);
  const pool = Array.from({ length: options.maxDepth + 1 }, () => [new Float64Array(size), new Float64Array(size)]);
  const grower: Grower = { binned, slots, starts, n, stride, thresholds, g: new Float64Array(n), h: new Float64Array(n), o: options, pool };
  const score = new Float64Array(n).fill(base);
  const trees: Node[] = [];
  const all = Int32Array.from({ length: n }, (_, i) => i);
  // The root's row counts are the same every round: counted once, copied in.
  const rootCounts = new Float64Array(size);
  for (let e = 0; e < slots.length; e++) rootCounts[slots[e]! + 2]!++;
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-score[i]!));
      grower.g[i] = p - y[i]!;
      grower.h[i] = Math.max(p * (1 - p), 1e-12);
    }
    // Each leaf adds its value to the rows that reached it: the same as predicting every row
    // through the new tree, since a row goes left exactly when its bin is at most the split bin.
    trees.push(grow(grower, all, rootHistogram(grower, rootCounts, pool[0]![0]!), 0, score));
  }
  return { base, trees, learningRate: options.learningRate, flat: flattenTrees(trees) };
}

/** The model's log-odds for one row. */
export function predictBoosted(model: BoostedModel, row: readonly number[]): number {
  const { roots, feature, threshold, left, value } = model.flat;
  const rate = model.learningRate;
  let s = model.base;
  for (let t = 0; t < roots.length; t++) {
    let at = roots[t]!;
    for (let f = feature[at]!; f >= 0; f = feature[at]!) at = row[f]! <= threshold[at]! ? left[at]! : left[at]! + 1;
    s += rate * value[at]!;
  }
  return s;
}

/** What prediction reads of a model: no nested trees, so it is cheap to send to a worker. */
export type PortableBoostedModel = Pick<BoostedModel, 'base' | 'learningRate' | 'flat'>;

/** The model's log-odds for the row of `rows` that starts at `offset`. */
export function predictBoostedAt(model: PortableBoostedModel, rows: Float64Array, offset: number): number {
  const { roots, feature, threshold, left, value } = model.flat;
  const rate = model.learningRate;
  let s = model.base;
  for (let t = 0; t < roots.length; t++) {
    let at = roots[t]!;
    for (let f = feature[at]!; f >= 0; f = feature[at]!) at = rows[offset + f]! <= threshold[at]! ? left[at]! : left[at]! + 1;
    s += rate * value[at]!;
  }
  return s;
}

function flattenTrees(trees: readonly Node[]): FlatTrees {
  let count = 0;
  const countNodes = (node: Node): number => ('leaf' in node ? 1 : 1 + countNodes(node.left) + countNodes(node.right));
  for (const t of trees) count += countNodes(t);
  const flat: FlatTrees = { roots: new Int32Array(trees.length), feature: new Int32Array(count), threshold: new Float64Array(count), left: new Int32Array(count), value: new Float64Array(count) };
  let next = 0;
  const place = (node: Node, at: number): void => {
    if ('leaf' in node) {
      flat.feature[at] = -1;
      flat.value[at] = node.leaf;
      return;
    }
    const children = next;
    next += 2;
    flat.feature[at] = node.feature;
    flat.threshold[at] = node.threshold;
    flat.left[at] = children;
    place(node.left, children);
    place(node.right, children + 1);
  };
  trees.forEach((t, i) => {
    flat.roots[i] = next++;
    place(t, flat.roots[i]!);
  });
  return flat;
}

interface Grower {
  /** Column-major bins: row i's feature j at j·n + i. */
  binned: Uint8Array | Uint16Array;
  /** Row i's histogram offsets 3 · (j · stride + bin), for the features j whose bin is not their last, at starts[i]..starts[i + 1]. */
  slots: Uint16Array | Uint32Array;
  starts: Int32Array;
  /** Rows. */
  n: number;
  /** Histogram slots per feature (bins + 1). */
  stride: number;
  thresholds: readonly number[][];
  g: Float64Array;
  h: Float64Array;
  o: BoostOptions;
  /** Histogram buffers by depth: [0][0] the root's, [depth] a node's two children's. */
  pool: Histogram[][];
}

/**
 * Per feature and bin, interleaved in one array: gradient sum at 3·slot, hessian sum at 3·slot + 1
 * and row count (an exact integer) at 3·slot + 2, so one row's update of a slot touches one place.
 * A feature's last bin stays 0: no split reads it.
 */
type Histogram = Float64Array;

/**
 * Fills `out` (zeroed here) with the histogram of `rows`. A row's slots are four at a time: one row
 * adds to each slot at most once, so every slot still sums its rows in their order (the same bits),
 * and the unrolled loop runs about twice as fast in V8 as one slot per iteration.
 */
function histogram(t: Grower, rows: Int32Array, out: Histogram): Histogram {
  const { slots, starts, g, h } = t;
  out.fill(0);
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    const gi = g[i]!;
    const hi = h[i]!;
    const end = starts[i + 1]!;
    let e = starts[i]!;
    for (; e + 3 < end; e += 4) {
      const a = slots[e]!;
      const b = slots[e + 1]!;
      const c = slots[e + 2]!;
      const d = slots[e + 3]!;
      out[a]! += gi;
      out[a + 1]! += hi;
      out[a + 2]!++;
      out[b]! += gi;
      out[b + 1]! += hi;
      out[b + 2]!++;
      out[c]! += gi;
      out[c + 1]! += hi;
      out[c + 2]!++;
      out[d]! += gi;
      out[d + 1]! += hi;
      out[d + 2]!++;
    }
    for (; e < end; e++) {
      const k = slots[e]!;
      out[k]! += gi;
      out[k + 1]! += hi;
      out[k + 2]!++;
    }
  }
  return out;
}

/**
 * `histogram` of every row, its counts copied from `counts`; four slots at a time, as there. Its
 * own loop, without the counts: the root's histogram is a fit's hottest loop, and one shared with
 * `histogram` (adding 0 to each count) made a fit about 8% slower.
 */
function rootHistogram(t: Grower, counts: Float64Array, out: Histogram): Histogram {
  const { slots, starts, g, h } = t;
  out.set(counts);
  const n = starts.length - 1;
  for (let i = 0; i < n; i++) {
    const gi = g[i]!;
    const hi = h[i]!;
    const end = starts[i + 1]!;
    let e = starts[i]!;
    for (; e + 3 < end; e += 4) {
      const a = slots[e]!;
      const b = slots[e + 1]!;
      const c = slots[e + 2]!;
      const d = slots[e + 3]!;
      out[a]! += gi;
      out[a + 1]! += hi;
      out[b]! += gi;
      out[b + 1]! += hi;
      out[c]! += gi;
      out[c + 1]! += hi;
      out[d]! += gi;
      out[d + 1]! += hi;
    }
    for (; e < end; e++) {
      const k = slots[e]!;
      out[k]! += gi;
      out[k + 1]! += hi;
    }
  }
  return out;
}

/** The parent's histogram minus one child's: the other child's, without reading its rows (as LightGBM and scikit-learn do). */
function subtract(parent: Histogram, child: Histogram, out: Histogram): Histogram {
  for (let k = 0; k < out.length; k++) out[k] = parent[k]! - child[k]!;
  return out;
}

function grow(t: Grower, rows: Int32Array, hist: Histogram, depth: number, score: Float64Array): Node {
  const { o, thresholds, stride } = t;
  const { g, h } = t;
  let gs = 0;
  let hs = 0;
  for (let r = 0; r < rows.length; r++) {
    gs += g[rows[r]!]!;
    hs += h[rows[r]!]!;
  }
  const leaf = (): Node => {
    const value = -gs / (hs + o.l2);
    for (let r = 0; r < rows.length; r++) score[rows[r]!]! += o.learningRate * value;
    return { leaf: value };
  };
  if (depth >= o.maxDepth || rows.length < 2 * o.minLeaf) return leaf();
  const parent = (gs * gs) / (hs + o.l2);
  let best = { gain: 1e-9, feature: -1, bin: -1 };
  for (let j = 0; j < thresholds.length; j++) {
    const cuts = thresholds[j]!.length;
    let gl = 0;
    let hl = 0;
    let cl = 0;
    for (let b = 0, k = 3 * j * stride; b < cuts; b++, k += 3) {
      gl += hist[k]!;
      hl += hist[k + 1]!;
      cl += hist[k + 2]!;
      const cr = rows.length - cl;
      if (cl < o.minLeaf || cr < o.minLeaf) continue;
      const gr = gs - gl;
      const hr = hs - hl;
      const gain = (gl * gl) / (hl + o.l2) + (gr * gr) / (hr + o.l2) - parent;
      if (gain > best.gain) best = { gain, feature: j, bin: b };
    }
  }
  if (best.feature < 0) return leaf();
  // A feature's bins are a column: a node's rows (ascending) read it front to back.
  const column = best.feature * t.n;
  const { binned } = t;
  let leftCount = 0;
  for (let r = 0; r < rows.length; r++) if (binned[column + rows[r]!]! <= best.bin) leftCount++;
  const left = new Int32Array(leftCount);
  const right = new Int32Array(rows.length - leftCount);
  let li = 0;
  let ri = 0;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    if (binned[column + i]! <= best.bin) left[li++] = i;
    else right[ri++] = i;
  }
  // Only the smaller child's rows are read; a leaf-depth child needs no histogram at all.
  const childrenSplit = depth + 1 < o.maxDepth;
  let leftHist = hist;
  let rightHist = hist;
  if (childrenSplit) {
    // Depth-first, a node's children are grown before its sibling's: each depth's pair of buffers is free again by then.
    const [smallBuffer, largeBuffer] = t.pool[depth + 1]!;
    const small = histogram(t, left.length <= right.length ? left : right, smallBuffer!);
    const large = subtract(hist, small, largeBuffer!);
    [leftHist, rightHist] = left.length <= right.length ? [small, large] : [large, small];
  }
  return {
    feature: best.feature,
    threshold: thresholds[best.feature]![best.bin]!,
    left: grow(t, left, leftHist, depth + 1, score),
    right: grow(t, right, rightHist, depth + 1, score),
  };
}

/** Every distinct value but the largest when there are at most `bins` of them, else up to `bins − 1` cut values at the training values' quantiles. */
function cutPoints(values: Float64Array, bins: number): number[] {
  // A column of at most `bins` values (flags, counts, ranks among a question's options: most of
  // them) is read without sorting it: its values are the cut points, the largest left out.
  const few = fewDistinct(values, bins);
  if (few) return few.sort((a, b) => a - b).slice(0, -1);
  const sorted = values.slice().sort();
  // Here a column has more than `bins` values, or a NaN (which `fewDistinct` leaves to the sort,
  // where each NaN counts as a value of its own): distinct values are counted only as far as
  // `bins` + 1, and listed only when there are that few.
  let distinct = sorted.length > 0 ? 1 : 0;
  for (let i = 1; i < sorted.length && distinct <= bins; i++) if (sorted[i] !== sorted[i - 1]) distinct++;
  if (distinct <= bins) {
    const below: number[] = [];
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) below.push(sorted[i]!);
    below.pop();
    return below;
  }
  const out: number[] = [];
  for (let b = 1; b < bins; b++) {
    const v = sorted[Math.min(sorted.length - 1, Math.floor((b * sorted.length) / bins))]!;
    // A cut at the maximum would leave the right side empty.
    if (v < sorted[sorted.length - 1]! && (out.length === 0 || v > out[out.length - 1]!)) out.push(v);
  }
  return out;
}

/**
 * The distinct values of `values` in order of first appearance, or null once there are more than
 * `bins` of them (or a NaN, which only the sorting path places). A zero's sign may differ from
 * the sorting path's; every use of a cut point compares with ≤, where 0 and −0 agree.
 */
function fewDistinct(values: Float64Array, bins: number): number[] | null {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) return null;
    let k = 0;
    while (k < out.length && out[k] !== v) k++;
    if (k < out.length) continue;
    if (out.length === bins) return null;
    out.push(v);
  }
  return out;
}

function binOf(v: number, cuts: readonly number[]): number {
  let lo = 0;
  let hi = cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v <= cuts[mid]!) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
