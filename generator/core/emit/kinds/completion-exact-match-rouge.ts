import { completionKind } from './completion.js';

/** Completion scored by exact match and ROUGE (e.g. a deep-research final answer). */
export const completionExactMatchRouge = completionKind({
  kind: 'completion_exact_match_rouge',
  title: 'Completion, exact match + ROUGE',
  exactMatch: true,
  rouge: true,
});
