import { allOptions, argmaxAmong, optionFeatures, survivors, uniformCredit } from '../features.js';
import type { ShortcutBaseline } from './types.js';

/**
 * The rules in sequence, as a test-taker without understanding would apply them: drop options
 * copied from the prompt, drop options calling a tool not offered (a step that would empty
 * the list is skipped), then pick the survivor most similar to all the other options, ties
 * broken by relevance to the question, then by length, then uniformly. The order is fixed in
 * advance, not chosen per task, so the guessing null stays exact: each pick depends only on
 * the question's text, and a gold placed uniformly at random is picked with probability 1/K.
 */
export const combined: ShortcutBaseline = {
  title: 'Combined: drop copies, drop off-tool, most similar, most relevant',
  description: 'drop copied options, drop options calling a tool not offered, pick the most similar to the other options; ties by relevance, then length',
  independent: true,
  sides: 'above',
  credits: (questions) =>
    questions.map((q) => {
      const f = optionFeatures(q);
      let candidates = survivors(allOptions(q), f.copied);
      candidates = survivors(candidates, f.offTool);
      candidates = argmaxAmong(candidates, f.similarity);
      candidates = argmaxAmong(candidates, f.relevance);
      candidates = argmaxAmong(candidates, f.length);
      return uniformCredit(candidates, q.gold);
    }),
};
