import { combined } from './combined.js';
import { copyElimination } from './copy-elimination.js';
import { frequentLetter } from './frequent-letter.js';
import { longestOption } from './longest-option.js';
import { mostSimilar } from './most-similar.js';
import { offeredTool } from './offered-tool.js';
import { topicRelevance } from './topic-relevance.js';
import type { ShortcutBaseline } from './types.js';

export type ShortcutName = 'longest_option' | 'most_similar' | 'copy_elimination' | 'offered_tool' | 'topic_relevance' | 'letter_prior' | 'combined';

/** Every shortcut baseline the audit runs, in report order; `combined` is the build gate. */
export const SHORTCUTS = {
  longest_option: longestOption,
  most_similar: mostSimilar,
  copy_elimination: copyElimination,
  offered_tool: offeredTool,
  topic_relevance: topicRelevance,
  letter_prior: frequentLetter,
  combined,
} as const satisfies Record<ShortcutName, ShortcutBaseline>;

export const SHORTCUT_NAMES = Object.keys(SHORTCUTS) as ShortcutName[];
export const GATE_SHORTCUT: ShortcutName = 'combined';
export type { ShortcutBaseline } from './types.js';
