/**
 * Ranks and correlations with scipy's conventions: ties get the average rank
 * (`scipy.stats.rankdata(method='average')`), and a constant input gives NaN.
 */

export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  // NaN has no place in a numeric order: such input keeps the comparator sort's order (ties by index).
  const nan = hasNaN(values);
  if (!nan && n > INSERTION_UP_TO) return ranksBySortedCopy(values);
  const order = nan ? Array.from({ length: n }, (_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number) || a - b) : insertionOrder(values);
  const ranks = new Float64Array(n);
  let i = 0;
  while (i < n) {
    let j = i;
    const v = values[order[i] as number] as number;
    while (j + 1 < n && values[order[j + 1] as number] === v) j++;
    const avg = (i + j) / 2 + 1;
    for (let t = i; t <= j; t++) ranks[order[t] as number] = avg;
    i = j + 1;
  }
  return ranks;
}

/**
 * Up to this many values the order comes from an insertion sort on a typed array (above it, from
 * a sorted copy): evaluate ranks a few dozen models per bootstrap resample and metric, hundreds
 * of thousands of times, where building an index array and sorting it with a comparator cost
 * more than the ranking itself.
 */
const INSERTION_UP_TO = 48;

function hasNaN(values: ArrayLike<number>): boolean {
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i])) return true;
  return false;
}

/**
 * Average ranks without an index sort: the values' native numeric sort, one average rank per run
 * of equal values, then a lookup per value (PACE's bootstrap pool ranks thousands of values per
 * fold). −0 and 0 are one run, as `===` and Map keys treat them, so the ranks equal the
 * comparator route's.
 */
function ranksBySortedCopy(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const sorted = Float64Array.from(values).sort();
  const rankOf = new Map<number, number>();
  for (let i = 0; i < n; ) {
    let j = i;
    const v = sorted[i]!;
    while (j + 1 < n && sorted[j + 1] === v) j++;
    rankOf.set(v, (i + j) / 2 + 1);
    i = j + 1;
  }
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; i++) ranks[i] = rankOf.get(values[i] as number)!;
  return ranks;
}

/** Indices by ascending value, equal values by index (the comparator sort's order). */
function insertionOrder(values: ArrayLike<number>): Int32Array {
  const n = values.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i] as number;
    let j = i;
    // Strictly greater: an equal value already placed has a lower index and stays first.
    while (j > 0 && (values[order[j - 1]!] as number) > v) {
      order[j] = order[j - 1]!;
      j--;
    }
    order[j] = i;
  }
  return order;
}

export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = a.length;
  if (n !== b.length || n < 2) return NaN;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i] as number;
    mb += b[i] as number;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = (a[i] as number) - ma;
    const db = (b[i] as number) - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  if (saa <= 0 || sbb <= 0) return NaN;
  return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}

export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  return pearson(averageRanks(a), averageRanks(b));
}
