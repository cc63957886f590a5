/**
 * Normalisations shared by distractor filtering, validation and the exact-match target.
 * They must agree with what the emitted harness task does (see docs/questions.md).
 */

/** Choice text compared for "same option": case, whitespace and trailing punctuation ignored. */
export function normaliseChoice(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s.;:!]+$/u, '')
    .trim();
}

/**
 * A command as exact match sees it: the first non-empty line, whitespace collapsed,
 * a leading shell prompt or backtick fence removed.
 */
export function normaliseCommand(text: string): string {
  const lines = text.replace(/^```[a-z]*\s*\n?/i, '').split('\n');
  const first = lines.find((l) => l.trim() !== '' && !l.trim().startsWith('```')) ?? '';
  return first.replace(/^\s*\$\s+/, '').replace(/\s+/g, ' ').trim();
}
