/**
 * Where the context grounds what sets an option apart. When the options differ in one entity
 * (same-slot swaps) or one search, the words an option has and the others lack are what a
 * reader compares — and the real next step's entity tends to be the one the goal names, the top
 * of the last observation shows and the context repeats, where a swapped-in one appears further
 * down or once. Per option, over its distinctive words (content words fewer than half of the
 * other options have): how many there are, the share the goal shows, the mean of each word's
 * first relative place in the last observation (a word it never shows counting as past its
 * end), how often the history repeats them; whether the history shows them beside the option's
 * other words (per distinctive word, the share of the option's shared content words the history
 * has within a few words of it, averaged: the real query's entity sits among its other words in
 * some result, a swapped-in one was met in another sentence); and the share of the word pairs
 * touching them that the history shows in that order. Over its unique words (those no other
 * option has): the share the trajectory after the goal shows at all, the share the last
 * observation shows, and the share the earlier steps themselves (their plans and calls) show. An
 * outside adversary found the shared golds from these three together (a gold's own words stand
 * in the last page it read more often, and in the earlier pages less often, than a swapped-in
 * entity's, which the builder takes from those pages).
 *
 * The table is built once per question from every text it may show; the features depend on
 * which options are shown together, so the adversarial filter recomputes them for each set it
 * tries from the same table (`distinctiveSalience`), and the audit reads the set it is given.
 * The filter keeps one table per draft for the whole task, so it holds bits and flat arrays only.
 */

/** Feature names, in the order `distinctiveSalience` returns them. */
export const SALIENCE_FEATURES = [
  'distinct_words',
  'distinct_in_goal',
  'distinct_first_in_last_observation',
  'distinct_repeats',
  'distinct_cooccurrence',
  'distinct_pairs_in_history',
  'distinct_in_history',
  'distinct_in_last_observation',
  'distinct_in_steps',
] as const;

/** The place given to a word the text does not show: past its end. */
const ABSENT = 1.5;
/** Words either side of a word within which another counts as beside it (a search result's title and snippet). */
const WINDOW = 40;

// Function words carry no entity: one of them set apart would read as "early in the observation" everywhere.
export const STOPWORDS: ReadonlySet<string> = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with what which who whom how when where why not do does did can about into than then there their they 的 了 是 在 和 与 及 或 等 为 对 中 上 下 个 这 那 有'.split(' '),
);

export interface SalienceTable {
  /** The ids of each text's distinct content words, ascending, text after text: text j's are [wordStart[j], wordStart[j + 1]). */
  words: Int32Array;
  wordStart: Int32Array;
  /** Per word id, two values: first relative place in the last observation, log1p of its count in the history. */
  stats: Float64Array;
  /** Per word id, where else it stands, as bits: IN_GOAL, IN_STEPS, AFTER_GOAL. */
  flags: Uint8Array;
  /**
   * Per word id, the texts that have it as a bit mask (bit j: text j); empty when there are more
   * than 31 texts. The filter tries up to thousands of sets per draft, and a mask makes "how many
   * rivals share this word" one popcount.
   */
  holders: Int32Array;
  /** Bit (a · stride · 32 + b): the history has word b within WINDOW words of word a. */
  beside: Uint32Array;
  /** 32-bit words per row of `beside`. */
  stride: number;
  /**
   * Each text's adjacent word pairs, text after text, as [first id, second id (−1 for a function
   * word), 1 when the history has the pair in that order, else 0]; text j's are entries
   * [pairStart[j], pairStart[j + 1]). Flat: the filter keeps a table per draft for a whole task.
   */
  pairs: Int32Array;
  pairStart: Int32Array;
}

export interface SalienceContext {
  goal: ReadonlySet<string>;
  /** The last observation's words, in order. */
  last: readonly string[];
  /** The history's words, in order. */
  history: readonly string[];
  /** Where in `history` the trajectory after the goal (its steps and observations) begins (default: its start). */
  trajectoryFrom?: number;
  /** The words of the earlier steps themselves (their calls and plans, not what they returned). */
  steps?: ReadonlySet<string>;
}

/** Bits of `SalienceTable.flags`: the word is in the goal, in an earlier step's plan or call, in the trajectory after the goal. */
const IN_GOAL = 1;
const IN_STEPS = 2;
const AFTER_GOAL = 4;

/** The grounding of every content word of `texts` (each given as its word list). */
export function salienceTable(context: SalienceContext, texts: ReadonlyArray<readonly string[]>): SalienceTable {
  const ids = new Map<string, number>();
  const perText = texts.map((list) => {
    const own = new Set<number>();
    for (const w of list) {
      if (STOPWORDS.has(w)) continue;
      let id = ids.get(w);
      if (id === undefined) ids.set(w, (id = ids.size));
      own.add(id);
    }
    return [...own].sort((a, b) => a - b);
  });
  const { flat: words, start: wordStart } = packed(perText);
  const n = ids.size;
  const lastFirst = new Float64Array(n).fill(ABSENT);
  for (let i = 0; i < context.last.length; i++) {
    const id = ids.get(context.last[i]!);
    if (id !== undefined && lastFirst[id] === ABSENT) lastFirst[id] = i / context.last.length;
  }
  // The history's places of the texts' words, in order: counts, and which words stand near which.
  const counts = new Float64Array(n);
  const flags = new Uint8Array(n);
  const trajectoryFrom = context.trajectoryFrom ?? 0;
  const at: number[] = [];
  const who: number[] = [];
  context.history.forEach((w, i) => {
    const id = ids.get(w);
    if (id === undefined) return;
    counts[id]!++;
    if (i >= trajectoryFrom) flags[id]! |= AFTER_GOAL;
    at.push(i);
    who.push(id);
  });
  const stride = Math.ceil(n / 32);
  const beside = new Uint32Array(n * stride);
  for (let k = 0; k < at.length; k++) {
    for (let j = k + 1; j < at.length && at[j]! - at[k]! <= WINDOW; j++) {
      const a = who[k]!;
      const b = who[j]!;
      beside[a * stride + (b >>> 5)]! |= 1 << (b & 31);
      beside[b * stride + (a >>> 5)]! |= 1 << (a & 31);
    }
  }
  const stats = new Float64Array(2 * n);
  for (const [w, id] of ids) {
    stats[2 * id] = lastFirst[id]!;
    stats[2 * id + 1] = Math.log1p(counts[id]!);
    if (context.goal.has(w)) flags[id]! |= IN_GOAL;
    if (context.steps?.has(w)) flags[id]! |= IN_STEPS;
  }
  const holders = new Int32Array(texts.length <= MASK_TEXTS ? n : 0);
  if (holders.length > 0) perText.forEach((own, j) => own.forEach((id) => (holders[id]! |= 1 << j)));
  const { flat: pairs, start: pairStart } = packed(pairsSeen(context.history, texts, ids));
  return { words, wordStart, stats, flags, holders, beside, stride, pairs, pairStart };
}

/** A table of no texts: a draft's place-holder until its features are read. */
export function emptySalienceTable(): SalienceTable {
  return { words: new Int32Array(0), wordStart: new Int32Array(1), stats: new Float64Array(0), flags: new Uint8Array(0), holders: new Int32Array(0), beside: new Uint32Array(0), stride: 0, pairs: new Int32Array(0), pairStart: new Int32Array(1) };
}

/** Lists as one flat array and where each starts (a last entry for the end). */
function packed(lists: ReadonlyArray<readonly number[]>): { flat: Int32Array; start: Int32Array } {
  const start = new Int32Array(lists.length + 1);
  lists.forEach((l, j) => (start[j + 1] = start[j]! + l.length));
  const flat = new Int32Array(start[lists.length]!);
  lists.forEach((l, j) => flat.set(l, start[j]!));
  return { flat, start };
}

const MASK_TEXTS = 31;

/** Ids of up to this many distinct history words take part in pair keys; rarer ones count as never seen together. */
const KEY_WORDS = 1 << 20;

/** Each text's adjacent pairs, with whether the history shows them. */
function pairsSeen(history: readonly string[], texts: ReadonlyArray<readonly string[]>, ids: ReadonlyMap<string, number>): number[][] {
  const vocabulary = new Map<string, number>();
  let previous = -1;
  const seen = new Set<number>();
  for (const w of history) {
    let id = vocabulary.get(w);
    if (id === undefined) vocabulary.set(w, (id = vocabulary.size));
    if (previous >= 0 && previous < KEY_WORDS && id < KEY_WORDS) seen.add(previous * KEY_WORDS + id);
    previous = id;
  }
  return texts.map((list) => {
    const out = new Array<number>(3 * Math.max(0, list.length - 1));
    for (let i = 1; i < list.length; i++) {
      const a = vocabulary.get(list[i - 1]!);
      const b = vocabulary.get(list[i]!);
      out[3 * (i - 1)] = ids.get(list[i - 1]!) ?? -1;
      out[3 * (i - 1) + 1] = ids.get(list[i]!) ?? -1;
      out[3 * (i - 1) + 2] = a !== undefined && b !== undefined && a < KEY_WORDS && b < KEY_WORDS && seen.has(a * KEY_WORDS + b) ? 1 : 0;
    }
    return out;
  });
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The salience features of option `i` shown beside `others` (indices into the table's texts), in SALIENCE_FEATURES order. */
export function distinctiveSalience(table: SalienceTable, i: number, others: readonly number[]): number[] {
  const rivals = others.filter((j) => j !== i);
  let sharedBy: (id: number) => number;
  if (table.holders.length > 0 || table.stats.length === 0) {
    // Bit j of a word's mask: text j has it (built for up to MASK_TEXTS texts).
    let mask = 0;
    for (const j of rivals) mask |= 1 << j;
    sharedBy = (id) => popcount(table.holders[id]! & mask);
  } else {
    const shared = new Map<number, number>();
    for (const j of rivals) for (let k = table.wordStart[j]!; k < table.wordStart[j + 1]!; k++) shared.set(table.words[k]!, (shared.get(table.words[k]!) ?? 0) + 1);
    sharedBy = (id) => shared.get(id) ?? 0;
  }
  const distinct: number[] = [];
  const shared: number[] = [];
  // Words no rival has: distinct ones, read again for where else they stand.
  const unique: number[] = [];
  for (let k = table.wordStart[i]!; k < table.wordStart[i + 1]!; k++) {
    const id = table.words[k]!;
    const holders = sharedBy(id);
    if (holders * 2 >= rivals.length && rivals.length > 0) shared.push(id);
    else {
      distinct.push(id);
      if (holders === 0) unique.push(id);
    }
  }
  const n = distinct.length;
  let inGoal = 0;
  let lastSum = 0;
  let repeats = 0;
  let besideSum = 0;
  for (const id of distinct) {
    if (table.flags[id]! & IN_GOAL) inGoal++;
    lastSum += table.stats[2 * id]!;
    repeats += table.stats[2 * id + 1]!;
    if (shared.length > 0) {
      let near = 0;
      for (const s of shared) if ((table.beside[id * table.stride + (s >>> 5)]! >>> (s & 31)) & 1) near++;
      besideSum += near / shared.length;
    }
  }
  let inHistory = 0;
  let inLast = 0;
  let inSteps = 0;
  for (const id of unique) {
    if (table.flags[id]! & AFTER_GOAL) inHistory++;
    if (table.stats[2 * id]! < ABSENT) inLast++;
    if (table.flags[id]! & IN_STEPS) inSteps++;
  }
  const u = unique.length;
  return [
    Math.log1p(n),
    n ? inGoal / n : 0,
    n ? lastSum / n : ABSENT,
    n ? repeats / n : 0,
    n ? besideSum / n : 0,
    pairsShare(table.pairs, table.pairStart[i]!, table.pairStart[i + 1]!, new Set(distinct)),
    u ? inHistory / u : 0,
    u ? inLast / u : 0,
    u ? inSteps / u : 0,
  ];
}

/** Share of the pairs touching a word of `distinct` that the history shows (0 when none touch one). */
function pairsShare(pairs: Int32Array, from: number, to: number, distinct: ReadonlySet<number>): number {
  let touching = 0;
  let seen = 0;
  for (let k = from; k < to; k += 3) {
    if (!distinct.has(pairs[k]!) && !distinct.has(pairs[k + 1]!)) continue;
    touching++;
    seen += pairs[k + 2]!;
  }
  return touching ? seen / touching : 0;
}
