/**
 * The question audit: per task, is the set answerable only by understanding it? Checks
 * letter balance, duplicates, leaks, identical options and model-free shortcut baselines,
 * each with its count, chance level and a binomial interval so small tasks are not
 * over-read. `auditQuestions` is pure; the CLI and the build both call it.
 */
import { type Finding, findingFactory } from '../../kernel/findings.js';
import { stableStringify } from '../../kernel/stable-json.js';
import { normaliseChoice } from '../normalise.js';
import type { CompletionQuestion, McqQuestion, Question } from '../types.js';
import { auditFindings } from './findings.js';
import { SHORTCUTS, SHORTCUT_NAMES, type ShortcutName } from './shortcuts/index.js';
import { chiSquareGoodnessOfFit, lowerTail, poissonBinomialPmf, upperTail, wilsonInterval } from './stats.js';
import { collapsedContext, collapsedPrompt, collapseWhitespace, letterOf, occurrences } from './text.js';
import { Rng } from '../../kernel/rng.js';

export { auditFindings } from './findings.js';
export { SHORTCUTS, SHORTCUT_NAMES, type ShortcutName } from './shortcuts/index.js';
export { balanceLetters, planBalancedGoldPositions, permuteChoices } from './balance.js';

const make = findingFactory(auditFindings);

export interface AuditOptions {
  /** Allowed distance from chance, in percentage points (default 5). */
  tolerancePoints?: number;
  /** Significance level a deviation must reach before it fails the audit (default 0.05). */
  alpha?: number;
  /** Golds/targets shorter than this (after collapsing whitespace) are not leak-checked: `ls` in a trajectory is not a leak. */
  minLeakChars?: number;
}

export type Verdict = 'pass' | 'warn' | 'fail';

export interface ShortcutResult {
  name: ShortcutName;
  title: string;
  sides: 'both' | 'above';
  n: number;
  /** Expected number right (ties earn fractional credit). */
  correct: number;
  accuracy: number;
  /** Mean of 1/K over the questions. */
  chance: number;
  excessPoints: number;
  /** 95% Wilson interval of the accuracy. */
  interval: [number, number];
  /** One-sided p-value in the direction of the deviation, under the Poisson-binomial null of guessing. */
  pValue: number;
  verdict: Verdict;
}

export interface LetterBalance {
  /** Gold counts by letter, A… up to the largest choice count. */
  histogram: Record<string, number>;
  /** Expected counts if every question's gold were uniform over its own choices. */
  expected: Record<string, number>;
  /** Largest |observed − expected| share, in points, and its letter. */
  maxDeviationPoints: number;
  maxDeviationLetter: string;
  chiSquare: number;
  df: number;
  pValue: number;
  verdict: Verdict;
}

export interface TaskAudit {
  task: string;
  questions: number;
  mcq: number;
  completion: number;
  /** Questions in the few-shot split: checked individually, left out of letter and shortcut statistics. */
  fewshot: number;
  /** How many MCQs have each number of choices. */
  choiceCounts: Record<string, number>;
  chance: number | null;
  letters: LetterBalance | null;
  shortcuts: ShortcutResult[];
  /**
   * Smallest excess over chance (points) a shortcut needs to reach significance at this size;
   * null when the task has no MCQ or is so small that not even a perfect score would be significant.
   */
  detectablePoints: number | null;
  duplicates: number;
  duplicatePrompts: number;
  /** MCQs whose gold is in the context alone (errors). */
  leaks: number;
  /** MCQs whose gold is in the context along with a distractor (warning, listed once per task). */
  goldInContext: number;
  /** Completions whose first target is in the prompt (warning, listed once per task). */
  targetsInPrompt: number;
  identicalChoices: number;
  invalid: number;
  verdict: Verdict;
}

export interface AuditReport {
  tolerancePoints: number;
  alpha: number;
  questions: number;
  tasks: TaskAudit[];
  verdict: Verdict;
}

export function auditQuestions(questions: Question[], options: AuditOptions = {}): { findings: Finding[]; report: AuditReport } {
  const tolerancePoints = options.tolerancePoints ?? 5;
  const alpha = options.alpha ?? 0.05;
  const minLeakChars = options.minLeakChars ?? 12;
  const findings: Finding[] = [];

  const indexOf = new Map<Question, number>();
  questions.forEach((q, i) => indexOf.set(q, i));

  const idCounts = new Map<string, number>();
  for (const q of questions) idCounts.set(q.id, (idCounts.get(q.id) ?? 0) + 1);
  for (const [id, count] of [...idCounts].sort(([a], [b]) => a.localeCompare(b))) {
    if (count > 1) findings.push(make('audit-duplicate-id', { record: questions.findIndex((q) => q.id === id), field: 'id' }, { id, count }));
  }

  const byTask = new Map<string, Question[]>();
  for (const q of questions) {
    const list = byTask.get(q.task) ?? [];
    list.push(q);
    byTask.set(q.task, list);
  }

  const tasks: TaskAudit[] = [];
  for (const task of [...byTask.keys()].sort()) {
    const taskQuestions = byTask.get(task)!;
    const taskFindings: Finding[] = [];
    const at = (q: Question, field?: string) => ({ record: indexOf.get(q)!, ...(field ? { field } : {}) });

    const { duplicates, duplicatePrompts } = checkDuplicates(task, taskQuestions, at, taskFindings);

    // Statistics describe what the harness scores: the test split. Few-shot questions are still
    // checked one by one, and a few-shot question equal to a test question is a duplicate.
    const valid: McqQuestion[] = [];
    // Soft leaks are common and often legitimate; one finding per task lists them.
    const softLeaks = { goldInContext: [] as string[], targetInPrompt: [] as string[] };
    let invalid = 0;
    let identicalChoices = 0;
    let leaks = 0;
    for (const q of taskQuestions) {
      if (q.format === 'mcq') {
        const problem = mcqProblem(q);
        if (problem) {
          invalid++;
          taskFindings.push(make('audit-invalid-mcq', at(q), { task, id: q.id, reason: problem }));
          continue;
        }
        if (q.split !== 'fewshot') valid.push(q);
        identicalChoices += checkIdenticalChoices(task, q, at, taskFindings);
        leaks += checkGoldLeak(task, q, minLeakChars, at, taskFindings, softLeaks.goldInContext);
      } else if (q.format === 'completion') {
        if (targetInPrompt(q, minLeakChars)) softLeaks.targetInPrompt.push(q.id);
      }
    }

    // Baselines see the task in id order, so sums (and the report's bytes) do not depend on input order.
    valid.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : indexOf.get(a)! - indexOf.get(b)!));
    const mcqCount = taskQuestions.filter((q) => q.format === 'mcq').length;
    const completionCount = taskQuestions.length - mcqCount;
    if (softLeaks.goldInContext.length) {
      const ids = softLeaks.goldInContext.sort();
      taskFindings.push(make('audit-gold-in-context', {}, { task, count: ids.length, total: mcqCount, ids }));
    }
    if (softLeaks.targetInPrompt.length) {
      const ids = softLeaks.targetInPrompt.sort();
      taskFindings.push(make('audit-target-in-prompt', {}, { task, count: ids.length, total: completionCount, ids }));
    }
    const chance = valid.length ? mean(valid.map((q) => 1 / q.choices.length)) : null;
    const letters = valid.length ? letterBalance(task, valid, tolerancePoints, alpha, taskFindings) : null;
    const shortcuts = valid.length ? SHORTCUT_NAMES.map((name) => runShortcut(task, name, valid, tolerancePoints, alpha, taskFindings)) : [];
    const detectablePoints = valid.length ? detectableExcess(valid, alpha / 2) : null;
    if (valid.length && (detectablePoints === null || detectablePoints > 2 * tolerancePoints)) {
      taskFindings.push(make('audit-low-power', {}, { task, n: valid.length, detectablePoints }));
    }

    const choiceCounts: Record<string, number> = {};
    for (const q of valid) choiceCounts[String(q.choices.length)] = (choiceCounts[String(q.choices.length)] ?? 0) + 1;

    findings.push(...taskFindings);
    tasks.push({
      task,
      questions: taskQuestions.length,
      mcq: mcqCount,
      completion: completionCount,
      fewshot: taskQuestions.filter((q) => q.split === 'fewshot').length,
      goldInContext: softLeaks.goldInContext.length,
      targetsInPrompt: softLeaks.targetInPrompt.length,
      choiceCounts,
      chance,
      letters,
      shortcuts,
      detectablePoints,
      duplicates,
      duplicatePrompts,
      leaks,
      identicalChoices,
      invalid,
      verdict: verdictOf(taskFindings),
    });
  }

  return {
    findings,
    report: { tolerancePoints, alpha, questions: questions.length, tasks, verdict: verdictOf(findings) },
  };
}

function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'error')) return 'fail';
  if (findings.some((f) => f.severity === 'warning')) return 'warn';
  return 'pass';
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

function mcqProblem(q: McqQuestion): string | undefined {
  if (!Array.isArray(q.choices) || q.choices.length < 2) return 'fewer than two choices';
  if (!Number.isInteger(q.gold) || q.gold < 0 || q.gold >= q.choices.length) return `gold ${q.gold} is not a choice index`;
  return undefined;
}

type At = (q: Question, field?: string) => { record: number; field?: string };

function answerKey(q: Question): unknown {
  return q.format === 'mcq'
    ? { gold: normaliseChoice(q.choices[q.gold] ?? ''), options: q.choices.map(normaliseChoice).sort() }
    : { targets: q.targets.map(collapseWhitespace) };
}

function checkDuplicates(task: string, questions: Question[], at: At, out: Finding[]): { duplicates: number; duplicatePrompts: number } {
  const byPrompt = new Map<string, Question>();
  const byContent = new Map<string, Question>();
  let duplicates = 0;
  let duplicatePrompts = 0;
  for (const q of questions) {
    const promptKey = `${q.format}\u0000${collapsedPrompt(q)}\u0000${collapseWhitespace(q.answer_stem)}`;
    const contentKey = `${promptKey}\u0000${stableStringify(answerKey(q))}`;
    const sameContent = byContent.get(contentKey);
    if (sameContent) {
      duplicates++;
      out.push(make('audit-duplicate-question', at(q), { task, id: q.id, firstId: sameContent.id }));
      continue;
    }
    byContent.set(contentKey, q);
    const samePrompt = byPrompt.get(promptKey);
    if (samePrompt) {
      duplicatePrompts++;
      out.push(make('audit-duplicate-prompt', at(q, 'prompt'), { task, id: q.id, firstId: samePrompt.id }));
    } else byPrompt.set(promptKey, q);
  }
  return { duplicates, duplicatePrompts };
}

function checkIdenticalChoices(task: string, q: McqQuestion, at: At, out: Finding[]): number {
  const seen = new Map<string, number>();
  let count = 0;
  q.choices.forEach((choice, i) => {
    const key = normaliseChoice(choice);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return;
    }
    count++;
    if (first === q.gold || i === q.gold) {
      const distractor = first === q.gold ? i : first;
      out.push(make('audit-distractor-equals-gold', at(q, `choices[${distractor}]`), { task, id: q.id, distractor: letterOf(distractor), gold: letterOf(q.gold) }));
    } else {
      out.push(make('audit-duplicate-distractors', at(q, `choices[${i}]`), { task, id: q.id, first: letterOf(first), second: letterOf(i) }));
    }
  });
  return count;
}

function checkGoldLeak(task: string, q: McqQuestion, minChars: number, at: At, out: Finding[], soft: string[]): number {
  const gold = collapseWhitespace(q.choices[q.gold]!);
  if (gold.length < minChars) return 0;
  const context = collapsedContext(q);
  if (occurrences(context, gold) === 0) return 0;
  const distractorsInContext = q.choices.filter((c, i) => i !== q.gold && collapseWhitespace(c).length > 0 && context.includes(collapseWhitespace(c))).length;
  if (distractorsInContext > 0) {
    soft.push(q.id);
    return 0;
  }
  out.push(make('audit-gold-leaked', at(q, 'prompt'), { task, id: q.id, letter: letterOf(q.gold) }));
  return 1;
}

function targetInPrompt(q: CompletionQuestion, minChars: number): boolean {
  const target = collapseWhitespace(q.targets[0] ?? '');
  return target.length >= minChars && collapsedPrompt(q).includes(target);
}

function letterBalance(task: string, questions: McqQuestion[], tolerancePoints: number, alpha: number, out: Finding[]): LetterBalance {
  const letters = Math.max(...questions.map((q) => q.choices.length));
  const observed = new Array<number>(letters).fill(0);
  const expected = new Array<number>(letters).fill(0);
  for (const q of questions) {
    observed[q.gold]!++;
    for (let j = 0; j < q.choices.length; j++) expected[j]! += 1 / q.choices.length;
  }
  const n = questions.length;
  let maxDeviationPoints = 0;
  let worst = 0;
  observed.forEach((o, j) => {
    const deviation = ((o - expected[j]!) / n) * 100;
    if (Math.abs(deviation) > Math.abs(maxDeviationPoints) + 1e-12) {
      maxDeviationPoints = deviation;
      worst = j;
    }
  });
  const test = chiSquareGoodnessOfFit(observed, expected);
  const histogram: Record<string, number> = {};
  const expectedOut: Record<string, number> = {};
  observed.forEach((o, j) => {
    histogram[letterOf(j)] = o;
    expectedOut[letterOf(j)] = expected[j]!;
  });
  let verdict: Verdict = 'pass';
  if (Math.abs(maxDeviationPoints) > tolerancePoints) {
    verdict = test.pValue < alpha ? 'fail' : 'warn';
    out.push(
      make(verdict === 'fail' ? 'audit-letter-imbalance' : 'audit-letter-imbalance-not-significant', {}, {
        task,
        n,
        letter: letterOf(worst),
        observedShare: observed[worst]! / n,
        expectedShare: expected[worst]! / n,
        deviationPoints: maxDeviationPoints,
        chiSquare: test.statistic,
        df: test.df,
        pValue: test.pValue,
        histogram: Object.entries(histogram).map(([l, c]) => `${l}=${c}`).join(' '),
      }),
    );
  }
  return {
    histogram,
    expected: expectedOut,
    maxDeviationPoints,
    maxDeviationLetter: letterOf(worst),
    chiSquare: test.statistic,
    df: test.df,
    pValue: test.pValue,
    verdict,
  };
}

function runShortcut(task: string, name: ShortcutName, questions: McqQuestion[], tolerancePoints: number, alpha: number, out: Finding[]): ShortcutResult {
  const baseline = SHORTCUTS[name];
  const credits = baseline.credits(questions);
  const n = questions.length;
  const nullProbabilities = questions.map((q) => 1 / q.choices.length);
  const correct = credits.reduce((s, c) => s + c, 0);
  const accuracy = correct / n;
  const chance = mean(nullProbabilities);
  const excessPoints = (accuracy - chance) * 100;
  const above = excessPoints >= 0;
  const pValue = baseline.independent
    ? // Fractional (tie) credit is rounded towards chance: the test never gets more evidence than the data holds.
      above
      ? upperTail(nullProbabilities, Math.floor(correct + 1e-9))
      : lowerTail(nullProbabilities, Math.ceil(correct - 1e-9))
    : simulatedPValue(task, name, questions, correct, above);
  // A two-sided rule spends alpha/2 on each side.
  const alphaUsed = baseline.sides === 'both' ? alpha / 2 : alpha;
  const outside = baseline.sides === 'both' ? Math.abs(excessPoints) > tolerancePoints : excessPoints > tolerancePoints;
  const interval = wilsonInterval(correct, n);
  let verdict: Verdict = 'pass';
  if (outside) {
    verdict = pValue < alphaUsed ? 'fail' : 'warn';
    const code = verdict === 'warn' ? 'audit-shortcut-not-significant' : above ? 'audit-shortcut-above-chance' : 'audit-shortcut-below-chance';
    out.push(
      make(code, {}, {
        task,
        shortcut: name,
        n,
        correct: round(correct, 3),
        accuracy,
        chance,
        excessPoints,
        low: interval[0],
        high: interval[1],
        pValue,
        alphaUsed,
        tolerancePoints,
      }),
    );
  }
  return { name, title: baseline.title, sides: baseline.sides, n, correct, accuracy, chance, excessPoints, interval, pValue, verdict };
}

/** Draws of the null per simulated p-value: resolution 1/2000, a fraction of a second per task. */
export const NULL_SIMULATIONS = 1999;

/**
 * Monte Carlo p-value for a shortcut whose successes are not independent: golds are redrawn
 * uniformly over each question's own options (the guessing null) and the shortcut re-scored.
 * Seeded by task and shortcut so the same set always gets the same p-value.
 */
function simulatedPValue(task: string, name: ShortcutName, questions: McqQuestion[], observed: number, above: boolean): number {
  const rng = new Rng(`audit-null/${task}/${name}`);
  const baseline = SHORTCUTS[name];
  const choiceCounts = Int32Array.from(questions, (q) => q.choices.length);
  const golds = new Int32Array(questions.length);
  let asExtreme = 0;
  for (let s = 0; s < NULL_SIMULATIONS; s++) {
    for (let i = 0; i < golds.length; i++) golds[i] = rng.int(choiceCounts[i]!);
    const total = baseline.totalForGolds
      ? baseline.totalForGolds(choiceCounts, golds)
      : baseline.credits(questions.map((q, i) => ({ ...q, gold: golds[i]! }))).reduce((sum, c) => sum + c, 0);
    if (above ? total >= observed - 1e-9 : total <= observed + 1e-9) asExtreme++;
  }
  return (asExtreme + 1) / (NULL_SIMULATIONS + 1);
}

/**
 * Points above chance at which the guessing-null tail P(X ≥ k) drops below `alpha` for this
 * task's size and choice counts; null if even k = n does not get there.
 */
function detectableExcess(questions: McqQuestion[], alpha: number): number | null {
  const probabilities = questions.map((q) => 1 / q.choices.length);
  const pmf = poissonBinomialPmf(probabilities);
  const chance = mean(probabilities);
  let tail = 0;
  for (let k = pmf.length - 1; k >= 0; k--) {
    tail += pmf[k]!;
    if (tail >= alpha) return k + 1 > questions.length ? null : Math.max(0, ((k + 1) / questions.length - chance) * 100);
  }
  return 0;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
