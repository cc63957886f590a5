import { optionFeatures } from '../features.js';
import { argmaxCredit, type ShortcutBaseline } from './types.js';

/**
 * Distractors made by perturbing the gold (another tool, a changed argument, a swapped word)
 * share most of its words, so the gold sits at the centre of the options: the option with the
 * highest mean word-set Jaccard similarity to the others is often the gold.
 */
export const mostSimilar: ShortcutBaseline = {
  title: 'Most similar to the other options',
  description: 'pick the option with the highest mean word-set Jaccard similarity to the other options',
  independent: true,
  sides: 'both',
  credits: (questions) => questions.map((q) => argmaxCredit(optionFeatures(q).similarity, q.gold)),
};
