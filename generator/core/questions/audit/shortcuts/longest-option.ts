import { optionFeatures } from '../features.js';
import { argmaxCredit, type ShortcutBaseline } from './types.js';

/** Gold options written by hand (or by the successful agent) are often longer and more specific than perturbations. */
export const longestOption: ShortcutBaseline = {
  title: 'Longest option',
  description: 'pick the option with the most characters (whitespace collapsed)',
  independent: true,
  sides: 'both',
  credits: (questions) => questions.map((q) => argmaxCredit(optionFeatures(q).length, q.gold)),
};
