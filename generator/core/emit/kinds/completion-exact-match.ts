import { completionKind } from './completion.js';

/** Completion scored by exact match on the normalised first line (e.g. the next shell command). */
export const completionExactMatch = completionKind({ kind: 'completion_exact_match', title: 'Completion, exact match', exactMatch: true, rouge: false });
