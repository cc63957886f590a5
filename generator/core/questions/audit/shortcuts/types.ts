import type { McqQuestion } from '../../types.js';

/**
 * A model-free rule that answers an MCQ without understanding it. If one beats chance, a
 * base model can too, and the task measures the shortcut instead of agentic skill.
 */
export interface ShortcutBaseline {
  title: string;
  /** One sentence for the docs and the review page. */
  description: string;
  /**
   * Which deviations from chance are exploitable. `both`: a rule that is reliably *wrong*
   * is as telling as one reliably right (avoid the longest option). `above`: only a gain
   * counts, because the rule is biased below chance by construction (see frequent-letter).
   */
  sides: 'both' | 'above';
  /**
   * True when each question's pick depends only on that question, so under the guessing null
   * the successes are independent and the exact Poisson-binomial tail applies. False when
   * picks share information across questions (a letter vote): successes are then correlated
   * and the audit simulates the null instead.
   */
  independent: boolean;
  /**
   * For each question of one task, the probability that the rule picks the gold option.
   * Ties are broken uniformly at random, so a tie among t options containing the gold
   * earns 1/t: the expected score, without drawing random numbers.
   */
  credits(questions: readonly McqQuestion[]): number[];
  /**
   * Optional fast path for the null simulation of a non-independent baseline: the summed
   * credit for gold positions `golds` over questions with `choiceCounts` options. Must equal
   * the sum of `credits` for the same golds (a test holds it to that).
   */
  totalForGolds?(choiceCounts: Int32Array, golds: Int32Array): number;
}

/** Expected credit of "pick the argmax of scores, ties uniformly". */
export function argmaxCredit(scores: readonly number[], gold: number): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const s of scores) if (s > best) best = s;
  let ties = 0;
  for (const s of scores) if (s === best) ties++;
  return scores[gold] === best ? 1 / ties : 0;
}
