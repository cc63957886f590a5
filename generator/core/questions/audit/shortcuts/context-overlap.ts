import { collapsedContext, words } from '../text.js';
import { argmaxCredit, type ShortcutBaseline } from './types.js';

/**
 * The gold step usually reuses names from the trajectory (files, functions, URLs), while
 * perturbations invent some. Overlap is the share of the option's distinct words that occur
 * in the context, so long options do not win merely by having more words (that is what
 * longest-option measures).
 */
export const contextOverlap: ShortcutBaseline = {
  title: 'Most word overlap with the context',
  description: "pick the option whose distinct words occur most (as a share of the option's words) in the prompt outside the rendered choices",
  independent: true,
  sides: 'both',
  credits: (questions) =>
    questions.map((q) => {
      const context = new Set(words(collapsedContext(q)));
      const scores = q.choices.map((choice) => {
        const optionWords = new Set(words(choice));
        if (optionWords.size === 0) return 0;
        let shared = 0;
        for (const w of optionWords) if (context.has(w)) shared++;
        return shared / optionWords.size;
      });
      return argmaxCredit(scores, q.gold);
    }),
};
