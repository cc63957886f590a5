/**
 * The learned adversary's view of an MCQ: per option, surface features that need no
 * understanding of what the trajectory means — length, word overlap with the question, the
 * last observation and the whole history, words the history never shows, tool and argument count, a
 * premature-finish marker, a bigram model fitted on the prompt (mean and weakest word: entity
 * swaps), capitalised words the history never shows, how many of a JSON step's argument words
 * its own plan mentions (a plan about one thing and a search for another), similarity to the
 * other options (mean and nearest), the rule features the shortcut baselines use, the step a
 * finish is offered at, the share of its word pairs the goal shows, how long a stretch of the
 * history its plan and arguments copy, its own words the solved examples show, how much of it
 * and of its arguments the goal shows, how like an earlier step it reads (character trigrams),
 * how many of its words the earlier steps themselves show and whether it repeats an earlier call
 * (earlier-steps.ts), and where the context grounds the words that set an option apart
 * (adversary-salience.ts). Pure and computed once per question object.
 */
import type { McqQuestion } from '../types.js';
import { jaccard, optionFeatures, relevanceShare } from './features.js';
import { SALIENCE_FEATURES, STOPWORDS, type SalienceTable, distinctiveSalience, salienceTable } from './adversary-salience.js';
import { optionTool, questionSegment } from './segment.js';
import { collapseWhitespace, words } from './text.js';
import { callOf, earlierSteps, nearestStep, trigrams } from './earlier-steps.js';
import { argumentCount, callArguments, contentText, parseJsonObject, planText } from './json-step.js';

/** Feature names, in the column order of `adversaryFeatures`. */
export const ADVERSARY_FEATURES = [
  'log_chars',
  'question_overlap',
  'last_observation_overlap',
  'history_overlap',
  'novel_words',
  'argument_count',
  'tool_shared_by_options',
  'tool_used_before',
  'finish_marker',
  'bigram_fluency',
  'copied',
  'off_tool',
  'similarity',
  'max_similarity',
  'weakest_bigram',
  'plan_arguments_agreement',
  'unseen_capitalised',
  'url_in_last_observation',
  'url_seen_earlier',
  'plan_fluency',
  'arguments_in_question',
  'novel_argument_words',
  'finish_step',
  'goal_bigram_overlap',
  'context_match_length',
  'unique_in_examples',
  'goal_overlap',
  'arguments_in_goal',
  'step_similarity',
  'steps_overlap',
  'repeats_earlier_call',
  ...SALIENCE_FEATURES,
] as const;

export type AdversaryFeature = (typeof ADVERSARY_FEATURES)[number];

/** The question text the adversary compares options to: the head of the trajectory segment. */
const QUESTION_CHARS = 600;
/** The last observation when the segment marks none: its tail. */
const LAST_OBSERVATION_CHARS = 1500;
/** Where an observation starts in a rendered trajectory (whitespace collapsed, NFKC: 观察： reads 观察:). */
const OBSERVATION_MARK = /(?:Observation|Output|观察|输出):/g;
/** The bigram model and the context-match runs read at most this much of the history (its end). */
const HISTORY_CHARS = 20_000;

const FINISH = /\b(?:task_complete|submit|finish|final[_ ]answer|done)\b|提交|完成任务/i;

/** A capitalised word: names, titles, places — what an entity swap brings in. */
const CAPITALISED = /\b[A-Z][a-z]+\b/g;

/** A URL as a step's arguments or an observation write it (quotes, brackets and spaces end it). */
const URL = /https?:\/\/[^\s"'<>)\]\\]+/g;

/** Column of the first salience feature; the rest follow in SALIENCE_FEATURES order. */
export const SALIENCE_COLUMN = ADVERSARY_FEATURES.indexOf(SALIENCE_FEATURES[0]);

export interface AdversaryTable {
  /** One row per option, columns in `ADVERSARY_FEATURES` order (raw, not standardised). */
  rows: number[][];
  /** What the salience columns are computed from, for another set of the same options. */
  salience: SalienceTable;
}

const cache = new WeakMap<object, number[][]>();

/** One row per option, columns in `ADVERSARY_FEATURES` order (raw, not standardised); once per question object. */
export function adversaryFeatures(q: McqQuestion): number[][] {
  let rows = cache.get(q);
  if (rows === undefined) cache.set(q, (rows = compute(q).rows));
  return rows;
}

/** The rows and the salience table they were computed from (not kept: the filter keeps its own per draft). */
export function adversaryTable(q: McqQuestion): AdversaryTable {
  return compute(q);
}

function compute(q: McqQuestion): AdversaryTable {
  const segment = questionSegment(q);
  const history = segment.trajectory.length > HISTORY_CHARS ? segment.trajectory.slice(-HISTORY_CHARS) : segment.trajectory;
  // The segment's words are read once: for the history's bigram model when the history is the
  // whole segment (no longer than HISTORY_CHARS), for the word set, and for the shortcut rules.
  const segmentWordList = words(segment.trajectory);
  const historyWords = new Set(segmentWordList);
  const rules = optionFeatures(q, historyWords);
  const questionText = segment.trajectory.slice(0, QUESTION_CHARS);
  const questionWordList = words(questionText);
  const questionWords = new Set(questionWordList);
  // The real step writes its query in the goal's own word pairs; a swapped entity breaks them.
  const goalPairs = new Set(questionWordList.slice(1).map((w, j) => `${questionWordList[j]}\u0000${w}`));
  // The whole last observation: a search's first results, where the entity the next step needs
  // often stands, open it, however long the observation runs.
  const lastStart = lastObservationStart(segment.trajectory);
  const lastText = segment.trajectory.slice(lastStart);
  const earlierText = segment.trajectory.slice(0, lastStart);
  const lastWordList = words(lastText);
  const lastWords = new Set(lastWordList);
  const historyWordList = history === segment.trajectory ? segmentWordList : words(history);
  const lowerHistory = history.toLowerCase();
  const bigram = fitBigram(historyWordList);
  const tools = q.choices.map(optionTool);
  const toolCounts = new Map<string, number>();
  for (const t of tools) if (t !== null) toolCounts.set(t, (toolCounts.get(t) ?? 0) + 1);
  const historyCapitalised = new Set(history.match(CAPITALISED) ?? []);
  const optionWordLists = q.choices.map((c) => words(collapseWhitespace(c)));
  // What a step says, without the JSON keys every option repeats: the words whose grounding sets options apart.
  const contents = q.choices.map((c) => contentText(collapseWhitespace(c)));
  const lowerContents = contents.map((c) => c.toLowerCase());
  const contentWords = contents.map((c) => new Set(words(c)));
  const historyGrams = sharedGrams(lowerContents, collapseWhitespace(lowerHistory));
  const wordSets = optionWordLists.map((list) => new Set(list));
  // A real next step opens a link the last observation lists; a borrowed or repeated one opens
  // a link met earlier or none the context shows.
  // The solved examples before the question: an option whose own words stand there (an entity
  // of the example's task swapped in) is told from the gold by that alone.
  const exampleWords = new Set(words(q.prompt.slice(0, Math.max(0, segment.start))));
  const earlier = earlierSteps(segment.trajectory);
  const salience = salienceTable({ goal: questionWords, last: lastWordList, history: segmentWordList, trajectoryFrom: earlier.goalWords, steps: earlier.stepWords }, contents.map((c) => words(c)));
  const all = q.choices.map((_, i) => i);
  const step = Math.log1p(Math.max(0, q.provenance.step ?? 0));
  const rows = q.choices.map((choice, i) => {
    const text = collapseWhitespace(choice);
    const optionWords = optionWordLists[i]!;
    const set = wordSets[i]!;
    const parsed = parseJsonObject(text);
    const argumentWords = new Set(words(argumentText(parsed, text)));
    const tool = tools[i] ?? null;
    const finish = FINISH.test(text);
    let novel = 0;
    for (const w of set) if (!historyWords.has(w)) novel++;
    const fluency = bigram(optionWords);
    const capitalised = new Set(text.match(CAPITALISED) ?? []);
    let unseen = 0;
    for (const w of capitalised) if (!historyCapitalised.has(w)) unseen++;
    const plan = parsed ? planText(parsed) : '';
    const urls = (text.match(URL) ?? []).map((u) => u.replace(/[.,;]+$/, ''));
    let novelArguments = 0;
    for (const w of argumentWords) if (!historyWords.has(w)) novelArguments++;
    return [
      Math.log1p([...text].length),
      relevanceShare(set, questionWords),
      relevanceShare(set, lastWords),
      relevanceShare(set, historyWords),
      Math.log1p(novel),
      parsed ? argumentCount(parsed) : 0,
      tool === null ? 0 : (toolCounts.get(tool) ?? 1) - 1,
      tool !== null && lowerHistory.includes(tool.toLowerCase()) ? 1 : 0,
      finish ? 1 : 0,
      fluency.mean,
      rules.copied[i] ? 1 : 0,
      rules.offTool[i] ? 1 : 0,
      rules.similarity[i]!,
      wordSets.reduce((m, other, j) => (j === i ? m : Math.max(m, jaccard(set, other))), 0),
      fluency.weakest,
      argumentWords.size === 0 || !plan ? 0 : relevanceShare(argumentWords, new Set(words(plan))),
      capitalised.size ? unseen / capitalised.size : 0,
      urls.some((u) => lastText.includes(u)) ? 1 : 0,
      urls.some((u) => earlierText.includes(u)) ? 1 : 0,
      plan ? bigram(words(plan)).mean : fluency.mean,
      argumentWords.size === 0 ? 0 : relevanceShare(argumentWords, questionWords),
      Math.log1p(novelArguments),
      finish ? step : 0,
      pairShare(optionWords, goalPairs),
      meanMatch(lowerContents[i]!, historyGrams),
      uniqueShare(set, wordSets, i, exampleWords),
      relevanceShare(contentWords[i]!, earlier.goal),
      argumentWords.size === 0 ? 0 : relevanceShare(argumentWords, earlier.goal),
      nearestStep(trigrams(contents[i]!), earlier.stepGrams),
      relevanceShare(contentWords[i]!, earlier.stepWords),
      earlier.calls.has(callOf(text)) ? 1 : 0,
      ...distinctiveSalience(salience, i, all),
    ];
  });
  return { rows, salience };
}

/** Share of the option's content words no other option has that `reference` holds (0 when it has none). */
function uniqueShare(own: ReadonlySet<string>, all: ReadonlyArray<ReadonlySet<string>>, i: number, reference: ReadonlySet<string>): number {
  if (reference.size === 0) return 0;
  let unique = 0;
  let held = 0;
  for (const w of own) {
    if (STOPWORDS.has(w) || all.some((other, j) => j !== i && other.has(w))) continue;
    unique++;
    if (reference.has(w)) held++;
  }
  return unique ? held / unique : 0;
}

/** Where the segment's last observation starts: after its last observation mark, else LAST_OBSERVATION_CHARS from its end. */
function lastObservationStart(trajectory: string): number {
  let at = -1;
  for (const m of trajectory.matchAll(OBSERVATION_MARK)) at = m.index + m[0].length;
  return at >= 0 && at < trajectory.length ? at : Math.max(0, trajectory.length - LAST_OBSERVATION_CHARS);
}

/** The arguments of a call: `execution.args`/`arguments`/`args` of a JSON step, else a command's words after its first. */
function argumentText(parsed: Record<string, unknown> | null, text: string): string {
  if (parsed) {
    const args = callArguments(parsed);
    return args === undefined ? '' : JSON.stringify(args);
  }
  const fn = /<function=[^>]*>([\s\S]*)/.exec(text);
  if (fn) return fn[1]!;
  return text.split(' ').slice(1).join(' ');
}

/** Lengths of the context runs an option's text is matched against, longest last. */
const MATCH_LENGTHS = [4, 8, 16, 32] as const;

/**
 * Of the runs of each MATCH_LENGTHS length in `texts`, the ones `context` shows too (as hashes).
 * The options are short and the context long (up to HISTORY_CHARS): the options' runs are hashed
 * into small sets, and the context is read once, each place's runs grown one length from the
 * last and left as soon as one is no option's run (a longer one starting there is none either).
 */
function sharedGrams(texts: readonly string[], context: string): Set<number>[] {
  const wanted = MATCH_LENGTHS.map((length) => {
    const out = new Set<number>();
    for (const text of texts) for (let i = 0; i + length <= text.length; i++) out.add(gramHash(text, i, length));
    return out;
  });
  const found = MATCH_LENGTHS.map(() => new Set<number>());
  for (let i = 0; i + MATCH_LENGTHS[0] <= context.length; i++) {
    let h = 0x811c9dc5;
    let j = i;
    for (let k = 0; k < MATCH_LENGTHS.length; k++) {
      const end = i + MATCH_LENGTHS[k]!;
      if (end > context.length) break;
      for (; j < end; j++) h = Math.imul(h ^ context.charCodeAt(j), 0x01000193);
      const hash = h >>> 0;
      if (!wanted[k]!.has(hash)) break;
      found[k]!.add(hash);
    }
  }
  return found;
}

function gramHash(text: string, at: number, length: number): number {
  let h = 0x811c9dc5;
  for (let j = at; j < at + length; j++) h = Math.imul(h ^ text.charCodeAt(j), 0x01000193);
  return h >>> 0;
}

/**
 * Matching statistics, coarsely: over the text's characters, the mean length of the longest
 * run starting there (of MATCH_LENGTHS, else 0) that the context shows. The real step is written
 * from pieces of what the agent read; a swapped entity cuts the pieces around it short (a reader
 * compressing each option against the context finds the gold so).
 */
function meanMatch(text: string, context: readonly Set<number>[]): number {
  if (text.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < text.length; i++) {
    let length = 0;
    for (let k = 0; k < MATCH_LENGTHS.length; k++) {
      const l = MATCH_LENGTHS[k]!;
      if (i + l > text.length || !context[k]!.has(gramHash(text, i, l))) break;
      length = l;
    }
    sum += length;
  }
  return sum / text.length;
}

/** Share of the sequence's adjacent word pairs that `pairs` holds (0 with fewer than two words). */
function pairShare(sequence: readonly string[], pairs: ReadonlySet<string>): number {
  if (sequence.length < 2) return 0;
  let shared = 0;
  for (let j = 1; j < sequence.length; j++) if (pairs.has(`${sequence[j - 1]}\u0000${sequence[j]}`)) shared++;
  return shared / (sequence.length - 1);
}

/**
 * A word-bigram model of the prompt, interpolated with its unigrams and add-one smoothed:
 * returns the mean log-probability per word of a word sequence and its least likely word
 * (both 0 for an empty sequence). Entity swaps and words cut in half read as unlikely
 * sequences under the prompt's own model; one swapped name shows most in the weakest word.
 */
function fitBigram(tokens: readonly string[]): (sequence: readonly string[]) => { mean: number; weakest: number } {
  const unigrams = new Map<string, number>();
  const bigrams = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    unigrams.set(tokens[i]!, (unigrams.get(tokens[i]!) ?? 0) + 1);
    if (i > 0) {
      const key = `${tokens[i - 1]}\u0000${tokens[i]}`;
      bigrams.set(key, (bigrams.get(key) ?? 0) + 1);
    }
  }
  const total = tokens.length;
  const vocabulary = unigrams.size + 1;
  const unigram = (w: string) => ((unigrams.get(w) ?? 0) + 1) / (total + vocabulary);
  return (sequence) => {
    if (sequence.length === 0) return { mean: 0, weakest: 0 };
    let sum = Math.log(unigram(sequence[0]!));
    let weakest = sum;
    for (let i = 1; i < sequence.length; i++) {
      const prev = sequence[i - 1]!;
      const w = sequence[i]!;
      const prevCount = unigrams.get(prev) ?? 0;
      const pair = bigrams.get(`${prev}\u0000${w}`) ?? 0;
      const conditional = prevCount > 0 ? pair / prevCount : 0;
      const logp = Math.log(0.7 * conditional + 0.3 * unigram(w));
      sum += logp;
      weakest = Math.min(weakest, logp);
    }
    return { mean: sum / sequence.length, weakest };
  };
}
