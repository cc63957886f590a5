/** Result types shared by the audit's checks (split out so the check modules do not import the index). */
import type { ShortcutName } from './shortcuts/index.js';

export type Verdict = 'pass' | 'warn' | 'fail';

export interface ShortcutResult {
  name: ShortcutName;
  title: string;
  sides: 'both' | 'above';
  n: number;
  /** Expected number right (ties earn fractional credit). */
  correct: number;
  accuracy: number;
  /** Mean of 1/K over the questions. */
  chance: number;
  excessPoints: number;
  /** 95% Wilson interval of the accuracy. */
  interval: [number, number];
  /** One-sided p-value in the direction of the deviation, under the Poisson-binomial null of guessing. */
  pValue: number;
  verdict: Verdict;
}

export interface LetterBalance {
  /** Gold counts by letter, A… up to the largest choice count. */
  histogram: Record<string, number>;
  /** Expected counts if every question's gold were uniform over its own choices. */
  expected: Record<string, number>;
  /** Largest |observed − expected| share, in points, and its letter. */
  maxDeviationPoints: number;
  maxDeviationLetter: string;
  chiSquare: number;
  df: number;
  pValue: number;
  verdict: Verdict;
}

/** A build whose audit failed writes its set under this name (`q.jsonl` → `q.audit-failed.jsonl`); emit refuses such files unless told. */
export const AUDIT_FAILED_SUFFIX = /\.audit-failed\.jsonl$/i;

export function auditFailedName(file: string): string {
  return file.replace(/\.jsonl$/i, '.audit-failed.jsonl');
}
