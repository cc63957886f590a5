import { optionFeatures } from '../features.js';
import { argmaxCredit, type ShortcutBaseline } from './types.js';

/**
 * The gold step is about the question being solved; a step borrowed from another trajectory
 * is not. Relevance is the share of the option's distinct words that occur in the question
 * segment outside its choice and tool lists (the question and trajectory so far), so shots
 * and instructions cannot saturate it and long options do not win by having more words.
 */
export const topicRelevance: ShortcutBaseline = {
  title: 'Most relevant to the question',
  description: "pick the option whose distinct words occur most (as a share of the option's words) in the question and trajectory, shots excluded",
  independent: true,
  sides: 'both',
  credits: (questions) => questions.map((q) => argmaxCredit(optionFeatures(q).relevance, q.gold)),
};
