/**
 * Every run of whitespace as one space: `text.replace(/\s+/g, ' ')`, but replacing only the runs
 * that are not already a single space. `/\s+/g` matches every space between two words and so
 * rebuilds the whole string; on trajectory text (mostly single spaces) this is about three times
 * faster, and it is a hot path of drafting and of the adversary's features.
 */
export function singleSpaced(text: string): string {
  return text.replace(RUN_TO_COLLAPSE, ' ');
}

/** Two or more whitespace characters, or one that is not a plain space. */
const RUN_TO_COLLAPSE = /\s{2,}|[^\S ]/g;
