import { allOptions, optionFeatures, survivors, uniformCredit } from '../features.js';
import type { ShortcutBaseline } from './types.js';

/**
 * A distractor taken from earlier in the same trajectory (or from a shot, or the tool list) is
 * already in the prompt, and the next step is rarely a repeat: drop options found verbatim in
 * the prompt outside the scored choice list, guess among the rest.
 */
export const copyElimination: ShortcutBaseline = {
  title: 'Drop options copied from the prompt',
  description: 'drop options found verbatim in the prompt outside the scored choice list (history, tool list, shots), guess uniformly among the rest',
  independent: true,
  sides: 'both',
  credits: (questions) => questions.map((q) => uniformCredit(survivors(allOptions(q), optionFeatures(q).copied), q.gold)),
};
