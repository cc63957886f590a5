/** Gold-letter balance of one task: observed vs expected counts (Σ 1/K_i per letter), chi-square goodness of fit. */
import { type Finding, findingFactory } from '../../kernel/findings.js';
import type { McqQuestion } from '../types.js';
import { auditFindings } from './findings.js';
import { chiSquareGoodnessOfFit } from './stats.js';
import { letterOf } from './text.js';
import type { LetterBalance, Verdict } from './verdict.js';

const make = findingFactory(auditFindings);

export function letterBalance(task: string, questions: McqQuestion[], tolerancePoints: number, alpha: number, out: Finding[]): LetterBalance {
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
