import { contextOverlap } from './context-overlap.js';
import { frequentLetter } from './frequent-letter.js';
import { longestOption } from './longest-option.js';
import type { ShortcutBaseline } from './types.js';

export type ShortcutName = 'longest_option' | 'context_overlap' | 'frequent_letter';

/** Every shortcut baseline the audit runs, in report order. */
export const SHORTCUTS = {
  longest_option: longestOption,
  context_overlap: contextOverlap,
  frequent_letter: frequentLetter,
} as const satisfies Record<ShortcutName, ShortcutBaseline>;

export const SHORTCUT_NAMES = Object.keys(SHORTCUTS) as ShortcutName[];
export type { ShortcutBaseline } from './types.js';
