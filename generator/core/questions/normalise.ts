/**
 * Normalisations shared by distractor filtering, validation and the exact-match target.
 * They must agree with what the emitted harness task does (see docs/questions.md).
 */
import { singleSpaced } from '../kernel/whitespace.js';

/** Choice text compared for "same option": case, whitespace and trailing punctuation ignored. */
export function normaliseChoice(text: string): string {
  const spaced = singleSpaced(text.normalize('NFKC').toLowerCase());
  // Trailing whitespace and . ; : ! dropped (a loop: an end-anchored regex is tried at every position).
  let end = spaced.length;
  while (end > 0 && TRAILING.test(spaced[end - 1]!)) end--;
  return spaced.slice(0, end).trim();
}

const TRAILING = /[\s.;:!]/;

/**
 * A command as exact match sees it: the first non-empty line, whitespace collapsed,
 * a leading shell prompt or backtick fence removed.
 */
export function normaliseCommand(text: string): string {
  const lines = text.replace(/^```[a-z]*\s*\n?/i, '').split('\n');
  const first = lines.find((l) => l.trim() !== '' && !l.trim().startsWith('```')) ?? '';
  return singleSpaced(first.replace(/^\s*\$\s+/, '')).trim();
}
