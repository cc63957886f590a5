/**
 * Runs one shortcut rule on a task and judges it: accuracy, Wilson interval, points above
 * chance, and the exact (or, for correlated rules, simulated) p-value under the guessing null.
 */
import { type Finding, findingFactory } from '../../kernel/findings.js';
import { Rng } from '../../kernel/rng.js';
import type { McqQuestion } from '../types.js';
import { auditFindings } from './findings.js';
import { GATE_SHORTCUT, SHORTCUTS, SHORTCUT_NAMES, type ShortcutName } from './shortcuts/index.js';
import { lowerTail, poissonBinomialPmf, upperTail, wilsonInterval } from './stats.js';
import type { ShortcutResult, Verdict } from './verdict.js';

const make = findingFactory(auditFindings);

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

export function runShortcut(task: string, name: ShortcutName, questions: McqQuestion[], maxShortcutGain: number, alpha: number, out: Finding[]): ShortcutResult {
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
  // The combined rule is the one pre-declared gate and gets the whole alpha; the single rules are
  // diagnostics run side by side, so they share it (Bonferroni) and a clean set does not fail
  // because one of several tests fired by chance. A two-sided rule spends half on each side.
  const familyAlpha = name === GATE_SHORTCUT ? alpha : alpha / (SHORTCUT_NAMES.length - 1);
  const alphaUsed = baseline.sides === 'both' ? familyAlpha / 2 : familyAlpha;
  const outside = baseline.sides === 'both' ? Math.abs(excessPoints) > maxShortcutGain : excessPoints > maxShortcutGain;
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
        maxShortcutGain,
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
export function detectableExcess(questions: McqQuestion[], alpha: number): number | null {
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
