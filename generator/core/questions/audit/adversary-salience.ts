/**
 * Where the context grounds what sets an option apart. When the options differ in one entity
 * (same-slot swaps) or one search, the words an option has and the others lack are what a
 * reader compares — and the real next step's entity tends to be the one the goal names, the top
 * of the last observation shows and the context repeats, where a swapped-in one appears further
 * down or once. Per option, over its distinctive words (content words fewer than half of the
 * other options have): how many there are, the share the goal shows, the earliest relative
 * place one appears in the last observation (and the mean of each word's first place there, a
 * word it never shows counting as past its end), the earliest and the latest place in the whole
 * history, and how often the history repeats them; and whether the context shows them beside
 * the option's other words: for each place the history has a distinctive word, the share of the
 * option's shared content words within a few words of it, at best (the real query's entity sits
 * among its other words in some result; a swapped-in one was met in another sentence), and the
 * share of the word pairs and triples around them that the history shows in that order.
 *
 * The table is built once per question from every text it may show; the features depend on
 * which options are shown together, so the adversarial filter recomputes them for each set it
 * tries from the same table (`distinctiveSalience`), and the audit reads the set it is given.
 */

/** Feature names, in the order `distinctiveSalience` returns them. */
export const SALIENCE_FEATURES = [
  'distinct_words',
  'distinct_in_goal',
  'distinct_first_in_last_observation',
  'distinct_mean_first_in_last_observation',
  'distinct_first_in_history',
  'distinct_latest_in_history',
  'distinct_repeats',
  'distinct_cooccurrence',
  'distinct_cooccurrence_mean',
  'distinct_pairs_in_history',
  'distinct_triples_in_history',
] as const;

/** The place given to a word the text does not show: past its end. */
const ABSENT = 1.5;
/** Words either side of a distinctive word's place within which the option's other words count as beside it (a search result's title and snippet). */
const WINDOW = 40;

// Function words carry no entity: one of them set apart would read as "early in the observation" everywhere.
export const STOPWORDS: ReadonlySet<string> = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with what which who whom how when where why not do does did can about into than then there their they 的 了 是 在 和 与 及 或 等 为 对 中 上 下 个 这 那 有'.split(' '),
);

export interface SalienceTable {
  /** Per text, the ids of its distinct content words. */
  words: number[][];
  /** Per word id: [in the goal (0/1), first place in the last observation, first place in the history, last place in the history, log1p of its count in the history]. */
  stats: number[][];
  /**
   * Per word id, the texts that have it as a bit mask (bit j: text j); empty when there are more
   * than 31 texts. The filter tries up to thousands of sets per draft, and a mask makes "how many
   * rivals share this word" one popcount.
   */
  holders: number[];
  /** Per word id, the word positions where the history has it, ascending. */
  positions: Int32Array[];
  /**
   * Per text, its adjacent word pairs and triples as [content word ids (−1 for a function word)…,
   * 1 when the history has those words in that order, else 0].
   */
  pairs: number[][][];
  triples: number[][][];
}

export interface SalienceContext {
  goal: ReadonlySet<string>;
  /** The last observation's words, in order. */
  last: readonly string[];
  /** The history's words, in order. */
  history: readonly string[];
}

/** The grounding of every content word of `texts` (each given as its word list). */
export function salienceTable(context: SalienceContext, texts: ReadonlyArray<readonly string[]>): SalienceTable {
  const ids = new Map<string, number>();
  const words = texts.map((list) => {
    const own = new Set<number>();
    for (const w of list) {
      if (STOPWORDS.has(w)) continue;
      let id = ids.get(w);
      if (id === undefined) ids.set(w, (id = ids.size));
      own.add(id);
    }
    return [...own].sort((a, b) => a - b);
  });
  const lastFirst = new Float64Array(ids.size).fill(ABSENT);
  const historyFirst = new Float64Array(ids.size).fill(ABSENT);
  const historyLast = new Float64Array(ids.size).fill(-0.5);
  const counts = new Float64Array(ids.size);
  places(context.last, ids, lastFirst, null, null);
  const at = places(context.history, ids, historyFirst, historyLast, counts);
  const stats: number[][] = [];
  for (const [w, id] of ids) stats[id] = [context.goal.has(w) ? 1 : 0, lastFirst[id]!, historyFirst[id]!, historyLast[id]!, Math.log1p(counts[id]!)];
  const holders: number[] = [];
  if (texts.length <= MASK_TEXTS) {
    holders.length = ids.size;
    holders.fill(0);
    words.forEach((own, j) => {
      for (const id of own) holders[id]! |= 1 << j;
    });
  }
  const { pairs, triples } = sequencesSeen(context.history, texts, ids);
  return { words, stats, holders, positions: at, pairs, triples };
}

/** Ids of up to this many distinct history words take part in pair and triple keys; rarer ones count as never seen together. */
const KEY_WORDS = 1 << 17;

/** Each text's adjacent pairs and triples, with whether the history shows them. */
function sequencesSeen(history: readonly string[], texts: ReadonlyArray<readonly string[]>, ids: ReadonlyMap<string, number>): { pairs: number[][][]; triples: number[][][] } {
  const vocabulary = new Map<string, number>();
  const code = history.map((w) => {
    let id = vocabulary.get(w);
    if (id === undefined) vocabulary.set(w, (id = vocabulary.size));
    return id;
  });
  const seenPairs = new Set<number>();
  const seenTriples = new Set<number>();
  for (let i = 1; i < code.length; i++) {
    if (code[i - 1]! < KEY_WORDS && code[i]! < KEY_WORDS) seenPairs.add(code[i - 1]! * KEY_WORDS + code[i]!);
    if (i >= 2 && code[i - 2]! < KEY_WORDS && code[i - 1]! < KEY_WORDS && code[i]! < KEY_WORDS) seenTriples.add((code[i - 2]! * KEY_WORDS + code[i - 1]!) * KEY_WORDS + code[i]!);
  }
  const known = (w: string) => {
    const id = vocabulary.get(w);
    return id !== undefined && id < KEY_WORDS ? id : -1;
  };
  const content = (w: string) => ids.get(w) ?? -1;
  const pairs: number[][][] = [];
  const triples: number[][][] = [];
  for (const list of texts) {
    const k = list.map(known);
    const c = list.map(content);
    const ownPairs: number[][] = [];
    const ownTriples: number[][] = [];
    for (let i = 1; i < list.length; i++) {
      ownPairs.push([c[i - 1]!, c[i]!, k[i - 1]! >= 0 && k[i]! >= 0 && seenPairs.has(k[i - 1]! * KEY_WORDS + k[i]!) ? 1 : 0]);
      if (i >= 2) ownTriples.push([c[i - 2]!, c[i - 1]!, c[i]!, k[i - 2]! >= 0 && k[i - 1]! >= 0 && k[i]! >= 0 && seenTriples.has((k[i - 2]! * KEY_WORDS + k[i - 1]!) * KEY_WORDS + k[i]!) ? 1 : 0]);
    }
    pairs.push(ownPairs);
    triples.push(ownTriples);
  }
  return { pairs, triples };
}

/** Share of the sequences touching a word of `distinct` that the history shows (0 when none touch one). */
function seenShare(sequences: readonly (readonly number[])[], distinct: ReadonlySet<number>): number {
  let touching = 0;
  let seen = 0;
  for (const sequence of sequences) {
    const last = sequence.length - 1;
    let touches = false;
    for (let j = 0; j < last && !touches; j++) touches = distinct.has(sequence[j]!);
    if (!touches) continue;
    touching++;
    seen += sequence[last]!;
  }
  return touching ? seen / touching : 0;
}

const MASK_TEXTS = 31;

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Each word's first (and last) relative place in `sequence`, and how often it occurs; a word never
 * met keeps the array's fill. Returns each word's positions.
 */
function places(sequence: readonly string[], ids: ReadonlyMap<string, number>, first: Float64Array, last: Float64Array | null, counts: Float64Array | null): Int32Array[] {
  const n = sequence.length;
  const found: number[][] = Array.from({ length: ids.size }, () => []);
  for (let i = 0; i < n; i++) {
    const id = ids.get(sequence[i]!);
    if (id === undefined) continue;
    if (first[id] === ABSENT) first[id] = i / n;
    if (last) last[id] = i / n;
    if (counts) counts[id]!++;
    found[id]!.push(i);
  }
  return found.map((list) => Int32Array.from(list));
}

/** Whether `sorted` holds a value within `window` of `at`. */
function near(sorted: Int32Array, at: number, window: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < at - window) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo]! <= at + window;
}

/** For one distinctive word, the largest share of `shared` words found within WINDOW of one of its places (0 when there are none). */
function besideShare(table: SalienceTable, id: number, shared: readonly number[]): number {
  if (shared.length === 0) return 0;
  let best = 0;
  const own = table.positions[id]!;
  // Bounded: the first places and the last ones (a long history repeats a common word often).
  const step = own.length > MAX_PLACES ? own.length / MAX_PLACES : 1;
  for (let k = 0; k < own.length && best < 1; k += step) {
    const at = own[Math.floor(k)]!;
    let hits = 0;
    for (const s of shared) if (near(table.positions[s]!, at, WINDOW)) hits++;
    best = Math.max(best, hits / shared.length);
  }
  return best;
}

const MAX_PLACES = 64;

/** The salience features of option `i` shown beside `others` (indices into the table's texts), in SALIENCE_FEATURES order. */
export function distinctiveSalience(table: SalienceTable, i: number, others: readonly number[]): number[] {
  const rivals = others.filter((j) => j !== i);
  let sharedBy: (id: number) => number;
  if (table.holders.length > 0 || table.stats.length === 0) {
    let mask = 0;
    for (const j of rivals) mask |= 1 << j;
    sharedBy = (id) => popcount(table.holders[id]! & mask);
  } else {
    const shared = new Map<number, number>();
    for (const j of rivals) for (const id of table.words[j]!) shared.set(id, (shared.get(id) ?? 0) + 1);
    sharedBy = (id) => shared.get(id) ?? 0;
  }
  let n = 0;
  let inGoal = 0;
  let last = ABSENT;
  let lastSum = 0;
  let history = ABSENT;
  let latest = -0.5;
  let repeats = 0;
  const distinct: number[] = [];
  const shared: number[] = [];
  for (const id of table.words[i]!) {
    if (sharedBy(id) * 2 >= rivals.length && rivals.length > 0) {
      shared.push(id);
      continue;
    }
    distinct.push(id);
    const [goal, lastAt, historyAt, historyLatest, count] = table.stats[id]!;
    n++;
    inGoal += goal!;
    last = Math.min(last, lastAt!);
    lastSum += lastAt!;
    history = Math.min(history, historyAt!);
    latest = Math.max(latest, historyLatest!);
    repeats += count!;
  }
  let beside = 0;
  let besideSum = 0;
  for (const id of distinct) {
    const share = besideShare(table, id, shared);
    beside = Math.max(beside, share);
    besideSum += share;
  }
  const distinctSet = new Set(distinct);
  return [
    Math.log1p(n),
    n ? inGoal / n : 0,
    last,
    n ? lastSum / n : ABSENT,
    history,
    latest,
    n ? repeats / n : 0,
    beside,
    n ? besideSum / n : 0,
    seenShare(table.pairs[i]!, distinctSet),
    seenShare(table.triples[i]!, distinctSet),
  ];
}
