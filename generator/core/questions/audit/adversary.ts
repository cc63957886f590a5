/**
 * The learned adversary: an options-only discriminator trained to pick the gold from surface
 * features (adversary-features.ts), cross-fitted so that no question is scored by a model that
 * saw its own source. Questions are grouped by the research question or issue they come from
 * (`provenance.source_group`, else `instance_id`, else the trajectory), groups are dealt into folds by a hash of
 * their key, and each fold is scored by a model fitted on the others; a question's credit is the
 * mean over ADVERSARY_REPEATS such dealings. Each of the learners of
 * learners.ts (logistic models on three views of the features, the best single feature) is
 * cross-fitted this way; per task and language the strongest one's held-out accuracy is judged
 * against chance like the shortcut rules, with a Bonferroni-widened interval for having tried
 * several, and gates.
 */
import { type Finding, findingFactory } from '../../kernel/findings.js';
import { hashSeed } from '../../kernel/rng.js';
import type { McqQuestion } from '../types.js';
import { adversaryFeatures } from './adversary-features.js';
import { auditFindings } from './findings.js';
import { ADVERSARY_LEARNERS, type AdversaryLearner, type LearnerName, type TrainingQuestion, type WarmStart } from './learners.js';
import { argmaxCredit } from './shortcuts/types.js';
import { upperTail, wilsonInterval } from './stats.js';
import type { Verdict } from './verdict.js';

const make = findingFactory(auditFindings);

/** Folds of the cross-fit (fewer when the task has fewer groups). */
export const ADVERSARY_FOLDS = 5;
/**
 * Cross-fits, each over its own dealing of the source groups into folds; a question's credit is
 * the mean over them. On a real build of 150 questions, one dealing put the trees at 42% and five
 * others at 28–37%: which groups happen to share a fold moves a single estimate by more than the
 * gate's margin, and the verdict must not hinge on that.
 */
export const ADVERSARY_REPEATS = 3;
/** A task-language cell is gated only from this many scored questions: below it the interval is too wide to say anything. */
export const ADVERSARY_MIN_QUESTIONS = 30;

export interface AdversaryCell {
  /** `all` for the whole task, else a language code. */
  language: string;
  /** The learner whose held-out accuracy is reported: the strongest in this cell. */
  learner: LearnerName;
  /** Every learner's held-out accuracy in this cell, in learners.ts order. */
  learners: Array<{ name: LearnerName; accuracy: number }>;
  n: number;
  /** Expected number right (ties earn fractional credit). */
  correct: number;
  accuracy: number;
  chance: number;
  excessPoints: number;
  /** Wilson interval of the accuracy at 95% over the learners tried (Bonferroni: 1 − 0.05 / learners). */
  interval: [number, number];
  /** One-sided p-value of reaching `correct` under the guessing null (Poisson-binomial), times the learners tried (capped at 1). */
  pValue: number;
  /**
   * Gated cells (languages with ≥ ADVERSARY_MIN_QUESTIONS questions) pass, warn or fail; a smaller
   * language warns when the adversary is beyond the limit (audit-adversary-small) and is otherwise
   * not gated; `all` is reported, not gated.
   */
  verdict: Verdict | 'not gated';
}

export interface AdversaryResult {
  groups: number;
  folds: number;
  /** Cross-fits averaged, each with its own fold dealing. */
  repeats: number;
  cells: AdversaryCell[];
}

/** Where a question comes from, for grouping: the research question / issue (`source_group`, else the instance id) when recorded, else the trajectory. */
export function sourceGroup(q: McqQuestion): string {
  return q.provenance.source_group || q.provenance.instance_id || q.provenance.traj_id;
}

/**
 * The fold of each question: source groups in the order of a hash of their key, dealt round-robin
 * into min(folds, groups) folds, so every question of a group shares its fold; each `repeat` hashes
 * with its own salt. Null with fewer than two groups.
 */
export function assignFolds(questions: readonly McqQuestion[], folds = ADVERSARY_FOLDS, repeat = 0): { fold: number[]; groups: number; folds: number } | null {
  const groups = [...new Set(questions.map(sourceGroup))];
  if (groups.length < 2) return null;
  const k = Math.min(folds, groups.length);
  const foldOfGroup = dealGroups(groups, k, repeat === 0 ? 'adversary' : `adversary/${repeat}`);
  return { fold: questions.map((q) => foldOfGroup.get(sourceGroup(q))!), groups: groups.length, folds: k };
}

/** Groups in the order of a salted hash of their key (ties by key), dealt round-robin into `k` folds. */
export function dealGroups(groups: readonly string[], k: number, salt: string): Map<string, number> {
  const order = [...groups].sort((a, b) => hashSeed(`${salt}/${a}`) - hashSeed(`${salt}/${b}`) || (a < b ? -1 : a > b ? 1 : 0));
  return new Map(order.map((g, i) => [g, i % k]));
}

/**
 * Held-out probability that the adversary picks each question's gold (aligned with
 * `questions`), averaged over `repeats` cross-fits with their own fold dealings, or null when
 * there are fewer than two source groups to cross-fit over.
 */
export function crossFittedCredits(
  questions: readonly McqQuestion[],
  folds = ADVERSARY_FOLDS,
  learner: AdversaryLearner = ADVERSARY_LEARNERS[0]!,
  repeats = ADVERSARY_REPEATS,
): { credits: number[]; groups: number; folds: number } | null {
  const rows = questions.map((q) => adversaryFeatures(q));
  const credits = new Array<number>(questions.length).fill(0);
  let shape: { groups: number; folds: number } | null = null;
  // Each fit of a logistic learner starts from the one before (its training questions overlap by
  // three folds in five), and reuses its curvature for its first steps: the objective is strictly
  // convex, so it reaches the same optimum in fewer passes over the rows.
  const warm: WarmStart = {};
  for (let repeat = 0; repeat < repeats; repeat++) {
    const assigned = assignFolds(questions, folds, repeat);
    if (!assigned) return null;
    const { fold: foldOf, groups, folds: k } = assigned;
    shape = { groups, folds: k };
    for (let fold = 0; fold < k; fold++) {
      const training: TrainingQuestion[] = [];
      questions.forEach((q, i) => {
        if (foldOf[i] !== fold) training.push({ rows: rows[i]!, gold: q.gold });
      });
      const score = learner.fit(training, undefined, warm);
      questions.forEach((q, i) => {
        if (foldOf[i] !== fold) return;
        credits[i]! += argmaxCredit(score(rows[i]!), q.gold) / repeats;
      });
    }
  }
  return shape && { credits, ...shape };
}

/**
 * Runs the adversary's learners on one task's scored MCQs and judges each language with enough
 * questions by the strongest learner there: it fails when its accuracy is more than `maxGain`
 * points above chance and its (Bonferroni-widened) 95% interval
 * lies wholly above chance + `maxGain`; above the limit but with the interval reaching it, it warns.
 * A smaller language warns when the strongest learner is above the limit and beats chance at
 * `alpha` (the audit's significance level; the p-value is over the learners tried).
 */
export function runAdversary(task: string, questions: readonly McqQuestion[], maxGain: number, out: Finding[], alpha = 0.05): AdversaryResult | null {
  const fits = ADVERSARY_LEARNERS.map((learner) => ({ learner, fitted: crossFittedCredits(questions, ADVERSARY_FOLDS, learner) }));
  const first = fits[0]!.fitted;
  if (!first) return null;
  const tried = fits.length;
  const languages = [...new Set(questions.map((q) => q.language ?? 'en'))].sort();
  const cell = (language: string, members: number[]): AdversaryCell => {
    const n = members.length;
    const learners = fits.map(({ learner, fitted }) => ({ name: learner.name, correct: members.reduce((s, i) => s + fitted!.credits[i]!, 0) }));
    const strongest = learners.reduce((best, l) => (l.correct > best.correct + 1e-9 ? l : best));
    const correct = strongest.correct;
    const probabilities = members.map((i) => 1 / questions[i]!.choices.length);
    const chance = probabilities.reduce((s, p) => s + p, 0) / n;
    const accuracy = correct / n;
    const excessPoints = (accuracy - chance) * 100;
    const interval = wilsonInterval(correct, n, 1 - 0.05 / tried);
    const pValue = Math.min(1, tried * upperTail(probabilities, Math.floor(correct + 1e-9)));
    let verdict: AdversaryCell['verdict'] = 'not gated';
    if (language !== 'all' && n < ADVERSARY_MIN_QUESTIONS && excessPoints > maxGain && pValue < alpha) {
      // Too few to gate, yet the adversary beats chance beyond doubt: a reader of the task's
      // verdict must not take these questions for vouched. (Without significance the strongest
      // of several learners is above the limit on many small cue-free sets by chance alone.)
      verdict = 'warn';
      out.push(make('audit-adversary-small', {}, { task, language, learner: strongest.name, n, accuracy, chance, excessPoints, maxGain, pValue, minQuestions: ADVERSARY_MIN_QUESTIONS }));
    } else if (language !== 'all' && n >= ADVERSARY_MIN_QUESTIONS) {
      verdict = 'pass';
      if (excessPoints > maxGain) {
        verdict = interval[0] > chance + maxGain / 100 ? 'fail' : 'warn';
        const args = { task, language, learner: strongest.name, n, correct: Math.round(correct * 1000) / 1000, accuracy, chance, excessPoints, low: interval[0], high: interval[1], maxGain };
        out.push(make(verdict === 'fail' ? 'audit-adversary-above-chance' : 'audit-adversary-not-significant', {}, args));
      }
    }
    const perLearner = learners.map((l) => ({ name: l.name, accuracy: l.correct / n }));
    return { language, learner: strongest.name, learners: perLearner, n, correct, accuracy, chance, excessPoints, interval, pValue, verdict };
  };
  const all = questions.map((_, i) => i);
  const cells = [cell('all', all), ...languages.map((language) => cell(language, all.filter((i) => (questions[i]!.language ?? 'en') === language)))];
  return { groups: first.groups, folds: first.folds, repeats: ADVERSARY_REPEATS, cells };
}
