/**
 * Which parts of a task are too small for the audit to vouch for. Below ADVERSARY_MIN_QUESTIONS
 * scored questions a language's learned adversary, a multi-select rule or a completion rule is
 * not gated: its interval is too wide to tell a biased set from a fair one. Such a task is WARN
 * whatever those checks happen to read, so its verdict does not change with the seed (a small
 * task otherwise read PASS at one seed and WARN at the next, on which rule crossed its limit by
 * chance), and a task the audit cannot vouch for never reads PASS.
 */
import type { Question } from '../types.js';
import { ADVERSARY_MIN_QUESTIONS } from './adversary.js';

export interface SmallCell {
  /** 'mcq' and 'multi_select' are judged per language; completion rules on the whole task. */
  format: Question['format'];
  /** The language of the cell; null for a completion task's whole test split. */
  language: string | null;
  /** Scored (test split) questions in the cell. */
  n: number;
}

/**
 * The cells of one task's questions under the gating minimum, in a fixed order (format, then
 * language). Few-shot questions are not scored and do not count. An MCQ question with an invalid gold is not scored either (`scoredMcq`
 * are the ones the audit scored).
 */
export function smallCells(taskQuestions: readonly Question[], scoredMcq: readonly Question[], minQuestions = ADVERSARY_MIN_QUESTIONS): SmallCell[] {
  const counts = new Map<string, SmallCell>();
  const cellOf = (q: Question): SmallCell => {
    const language = q.format === 'completion' ? null : (q.language ?? 'en');
    const key = `${q.format}\u0000${language ?? ''}`;
    let cell = counts.get(key);
    if (!cell) counts.set(key, (cell = { format: q.format, language, n: 0 }));
    return cell;
  };
  // Every format and language the task has is a cell, so a task whose questions are all few-shot
  // examples (nothing scored) reads 0, not "nothing to judge".
  for (const q of taskQuestions) cellOf(q);
  for (const q of scoredMcq) cellOf(q).n++;
  for (const q of taskQuestions) if (q.format !== 'mcq' && q.split !== 'fewshot') cellOf(q).n++;
  const order: Record<Question['format'], number> = { mcq: 0, multi_select: 1, completion: 2 };
  return [...counts.values()]
    .filter((c) => c.n < minQuestions)
    .sort((a, b) => order[a.format] - order[b.format] || (a.language ?? '').localeCompare(b.language ?? ''));
}

/** "zh 14 MCQ", "en 3 multi-select", "21 completion": how a verdict line and a finding name a cell. */
export function describeCell(c: SmallCell): string {
  const kind = c.format === 'mcq' ? 'MCQ' : c.format === 'multi_select' ? 'multi-select' : 'completion';
  return `${c.language ? `${c.language} ` : ''}${c.n} ${kind}`;
}
