import { completionKind } from './completion.js';

/** Completion scored by ROUGE-1/2/L against the references. */
export const completionRouge = completionKind({ kind: 'completion_rouge', title: 'Completion, ROUGE', exactMatch: false, rouge: true });
