/**
 * The learned adversary's models, in the order they are tried. Each is fitted on questions given
 * as raw option feature rows (gold index known) and scores a question's options; a question is
 * answered by its highest-scoring option.
 *
 * - `linear`: L2-regularised logistic regression (ranker.ts) on the features standardised within
 *   the question.
 * - `ranked`: the same on three views of each feature — standardised within the question, its
 *   rank among the options, and its raw value (standardised over the training options) — so an
 *   option's standing can depend on where the question itself lies ("the most fluent option,
 *   when all options read poorly").
 * - `trees`: gradient-boosted trees (boosted-trees.ts, the model family of scikit-learn's
 *   `HistGradientBoostingClassifier`) on the ranked view, so it reads cues that show only in
 *   combination or in both tails of a feature.
 * - `single-feature`: the one feature and direction ("pick the most fluent", "pick the shortest")
 *   that answers the training questions best. A cue carried by one feature is found by it with
 *   no fitting noise, where a regression spread over many features can miss it.
 *
 * The gate takes the strongest of them (with a Bonferroni-widened interval). The build's
 * adversarial filter chooses distractors against the trees and drops what the fitted models
 * still find (adversarial-filter.ts, adversarial-drop.ts).
 */
import { fitLogisticFlat, type LogisticCurvature, type LogisticModel, scoreRow, standardiseWithin } from './ranker.js';
import { argmaxCredit } from './shortcuts/types.js';
import { type PortableBoostedModel, fitBoostedFlat, predictBoostedAt } from './boosted-trees.js';
import { fitTreesOffThread } from './trees-thread.js';
import { rankedInto, writeRaw } from './ranked-rows.js';

export type LearnerName = 'linear' | 'ranked' | 'trees' | 'single-feature';

/** One training question: raw option feature rows and the gold's index among them. */
export interface TrainingQuestion {
  rows: readonly (readonly number[])[];
  gold: number;
}

/** Scores of one question's options, from its raw feature rows. */
export type Scorer = (rows: readonly (readonly number[])[]) => number[];

/**
 * A slot one caller keeps across fits of the same learner on nearly the same training questions
 * (the build's drop step refits after removing a few percent of them): a logistic learner starts
 * Newton's method from the weights it left there and leaves its new ones. The optimum is the same,
 * it is reached in fewer steps.
 */
export interface WarmStart {
  weights?: number[];
  /** The Hessian that fit used, with its row count: the next warm fit's first curvature. */
  curvature?: LogisticCurvature;
}

export interface AdversaryLearner {
  name: LearnerName;
  fit(training: readonly TrainingQuestion[], maxIterations?: number, warm?: WarmStart): Scorer;
}

/**
 * The model's input rows of one question, given a transform fitted on the training questions.
 * `training` marks rows a learner is fitted on, whose within-question parts are kept (zOf, ranksOf);
 * rows only scored are often built for one call (the filter scores each candidate set once).
 */
type View = (rows: readonly (readonly number[])[], training?: boolean) => number[][];

/**
 * Writes a training question's option rows (the view's, as `view(rows, true)` gives them) at
 * out[offset + i·stride …] when `out` is given, and returns the view's width.
 */
type Fill = (rows: readonly (readonly number[])[], out: Float64Array | null, offset: number, stride: number) => number;

function logistic(name: LearnerName, c: number, prepare: (training: readonly TrainingQuestion[]) => { view: View; fill: Fill }): AdversaryLearner {
  return {
    name,
    fit(training, maxIterations = 50, warm) {
      const { view, fill } = prepare(training);
      // Every training option's model row with a trailing 1, flat, labelled 1 for a gold and 0 for a distractor.
      const n = training.reduce((s, q) => s + q.rows.length, 0);
      const first = training.find((q) => q.rows.length > 0);
      const d = first ? fill(first.rows, null, 0, 0) : 0;
      const x = new Float64Array(n * (d + 1));
      const y = new Uint8Array(n);
      let at = 0;
      for (const q of training) {
        fill(q.rows, x, at * (d + 1), d + 1);
        for (let i = 0; i < q.rows.length; i++) {
          x[(at + i) * (d + 1) + d] = 1;
          y[at + i] = i === q.gold ? 1 : 0;
        }
        at += q.rows.length;
      }
      const start = warm?.weights && warm.weights.length === d + 1 ? warm.weights : undefined;
      if (warm && start === undefined) warm.curvature = undefined;
      if (warm && !warm.curvature) warm.curvature = { hessian: new Float64Array(0), rows: 0 };
      const model: LogisticModel = fitLogisticFlat(x, d, y, c, maxIterations, start, warm?.curvature);
      if (warm) warm.weights = [...model.weights, model.intercept];
      return (rows) => view(rows).map((row) => scoreRow(model, row));
    },
  };
}

/**
 * The within-question parts of a question's view (z-scores, ranks) depend on its rows alone; the
 * same rows array is fitted on many times (every fold and refit of a cross-fit), so they are kept
 * per array. Callers never mutate rows once handed to a learner.
 */
const zCache = new WeakMap<object, number[][]>();
const rankCache = new WeakMap<object, number[][]>();

function zOf(rows: readonly (readonly number[])[]): number[][] {
  let z = zCache.get(rows);
  if (z === undefined) zCache.set(rows, (z = standardiseWithin(rows)));
  return z;
}

function ranksOf(rows: readonly (readonly number[])[]): number[][] {
  let r = rankCache.get(rows);
  if (r === undefined) rankCache.set(rows, (r = rankWithin(rows)));
  return r;
}

const withinQuestion: View = (rows, training) => (training ? zOf(rows) : standardiseWithin(rows));

const fillWithin: Fill = (rows, out, offset, stride) => {
  const z = zOf(rows);
  if (out) z.forEach((r, i) => out.set(r, offset + i * stride));
  return z[0]?.length ?? 0;
};

/** The ranked view's training rows (as `rankedView` gives them), written flat. */
function rankedFill({ mean, sd }: ReturnType<typeof rawScale>): Fill {
  return (rows, out, offset, stride) => {
    const z = zOf(rows);
    const ranks = ranksOf(rows);
    if (out) {
      rows.forEach((r, i) => {
        const at = offset + i * stride;
        out.set(z[i]!, at);
        out.set(ranks[i]!, at + z[i]!.length);
        writeRaw(r, out, at + z[i]!.length + ranks[i]!.length, mean, sd);
      });
    }
    return (z[0]?.length ?? 0) + (ranks[0]?.length ?? 0) + (rows[0]?.length ?? 0);
  };
}

/**
 * Each raw column's mean and sd over the training options. The build's drop step fits the ranked
 * learner and the trees on the same training array: computed once per array (callers never
 * mutate one once handed to a learner).
 */
function rawScale(training: readonly TrainingQuestion[]): { mean: number[]; sd: number[]; d: number } {
  let scale = scaleCache.get(training);
  if (scale === undefined) scaleCache.set(training, (scale = computeRawScale(training)));
  return scale;
}

const scaleCache = new WeakMap<object, { mean: number[]; sd: number[]; d: number }>();

/** Row by row, each column summed in row order: the same sums as a column-by-column pass, read in memory order. */
function computeRawScale(training: readonly TrainingQuestion[]): { mean: number[]; sd: number[]; d: number } {
  const first = training.find((q) => q.rows.length > 0);
  const d = first?.rows[0]?.length ?? 0;
  const count = training.reduce((s, q) => s + q.rows.length, 0);
  const mean = new Array<number>(d).fill(0);
  const sd = new Array<number>(d).fill(0);
  for (const q of training) for (const r of q.rows) for (let j = 0; j < d; j++) mean[j]! += r[j]!;
  for (let j = 0; j < d; j++) mean[j]! /= Math.max(1, count);
  for (const q of training) for (const r of q.rows) for (let j = 0; j < d; j++) sd[j]! += (r[j]! - mean[j]!) ** 2;
  for (let j = 0; j < d; j++) sd[j] = Math.sqrt(sd[j]! / Math.max(1, count));
  return { mean, sd, d };
}

/** Within-question z-scores, ranks scaled to [0, 1], and raw values standardised by the training options' mean and sd. */
function rankedView(training: readonly TrainingQuestion[], scale = rawScale(training)): View {
  const { mean, sd } = scale;
  return (rows, training) => {
    const z = training ? zOf(rows) : standardiseWithin(rows);
    const ranks = training ? ranksOf(rows) : rankWithin(rows);
    return rows.map((r, i) => [...z[i]!, ...ranks[i]!, ...r.map((v, j) => (sd[j]! > 1e-9 ? (v - mean[j]!) / sd[j]! : 0))]);
  };
}

/** Each column's rank among the question's options (ties share the mean rank), scaled to [0, 1]. */
function rankWithin(rows: readonly (readonly number[])[]): number[][] {
  const k = rows.length;
  const out = rows.map(() => new Array<number>(rows[0]?.length ?? 0).fill(0));
  if (k < 2) return out;
  for (let j = 0; j < (rows[0]?.length ?? 0); j++) {
    for (let i = 0; i < k; i++) {
      let below = 0;
      let equal = 0;
      for (let m = 0; m < k; m++) {
        if (rows[m]![j]! < rows[i]![j]!) below++;
        else if (rows[m]![j]! === rows[i]![j]!) equal++;
      }
      out[i]![j] = (below + (equal - 1) / 2) / (k - 1);
    }
  }
  return out;
}

/**
 * Gradient-boosted trees (boosted-trees.ts) on the ranked view: the model family of the
 * independent adversary. The view is written into flat rows (ranked-rows.ts), the same values
 * `rankedView` gives, without an array per option.
 */
const boostedTrees: AdversaryLearner = {
  name: 'trees',
  fit(training) {
    const data = treesData(training);
    return treesScorer(scorerParts(fitBoostedFlat(data.x, data.width, data.y), data));
  },
};

/**
 * The trees fitted on `training` as `boostedTrees.fit` fits them; on the tree worker when
 * `offThread` and there is one (trees-thread.ts), so that the caller can fit others meanwhile.
 */
export async function fitTrees(training: readonly TrainingQuestion[], offThread: boolean): Promise<Scorer> {
  return treesScorer(await fitTreesParts(training, offThread));
}

/**
 * What a trees scorer needs, in plain arrays that a worker can be sent (structured clones are
 * exact, so a scorer made from them there scores to the bit as here): the flat trees and the
 * ranked view's width and raw-column scale.
 */
export interface TreesScorerParts {
  model: PortableBoostedModel;
  width: number;
  mean: number[];
  sd: number[];
}

/** `fitTrees`, as the parts of its scorer (`treesScorer` makes the scorer). */
export async function fitTreesParts(training: readonly TrainingQuestion[], offThread: boolean): Promise<TreesScorerParts> {
  const data = treesData(training);
  const remote = offThread ? fitTreesOffThread(data.x, data.width, data.y) : null;
  return scorerParts(remote ? await remote : fitBoostedFlat(data.x, data.width, data.y), data);
}

/** A fitted model's parts a scorer reads (not its nested trees), with the view's scale. */
function scorerParts({ base, learningRate, flat }: PortableBoostedModel, { width, mean, sd }: { width: number; mean: number[]; sd: number[] }): TreesScorerParts {
  return { model: { base, learningRate, flat }, width, mean, sd };
}

/** The training rows of the trees: the ranked view, flat, labelled 1 for a gold and 0 for a distractor. */
function treesData(training: readonly TrainingQuestion[]) {
  const { mean, sd, d } = rawScale(training);
  const width = 3 * d;
  const n = training.reduce((s, q) => s + q.rows.length, 0);
  const x = new Float64Array(n * width);
  const y = new Uint8Array(n);
  let at = 0;
  for (const q of training) {
    const z = zOf(q.rows);
    const ranks = ranksOf(q.rows);
    q.rows.forEach((r, i) => {
      const offset = at * width;
      for (let j = 0; j < d; j++) x[offset + j] = z[i]![j]!;
      for (let j = 0; j < d; j++) x[offset + d + j] = ranks[i]![j]!;
      writeRaw(r, x, offset + 2 * d, mean, sd);
      y[at++] = i === q.gold ? 1 : 0;
    });
  }
  return { x, y, width, mean, sd };
}

/** Scores a question's options with fitted trees: the ranked view of its rows, then each row's log-odds. */
export function treesScorer({ model, width, mean, sd }: TreesScorerParts): Scorer {
  let buffer = new Float64Array(0);
  return (rows) => {
    if (buffer.length < rows.length * width) buffer = new Float64Array(rows.length * width);
    rankedInto(rows, buffer, width, mean, sd);
    return rows.map((_, i) => predictBoostedAt(model, buffer, i * width));
  };
}

const singleFeature: AdversaryLearner = {
  name: 'single-feature',
  fit(training) {
    const d = training[0]?.rows[0]?.length ?? 0;
    let best = { feature: 0, sign: 1, credit: -1 };
    for (let feature = 0; feature < d; feature++) {
      for (const sign of [1, -1]) {
        let credit = 0;
        for (const q of training) credit += argmaxCredit(q.rows.map((r) => sign * r[feature]!), q.gold);
        if (credit > best.credit + 1e-9) best = { feature, sign, credit };
      }
    }
    return (rows) => rows.map((row) => best.sign * row[best.feature]!);
  },
};

export const ADVERSARY_LEARNERS = [
  logistic('linear', 1, () => ({ view: withinQuestion, fill: fillWithin })),
  logistic('ranked', 1, (training) => {
    const scale = rawScale(training);
    return { view: rankedView(training, scale), fill: rankedFill(scale) };
  }),
  boostedTrees,
  singleFeature,
] as const satisfies readonly AdversaryLearner[];
