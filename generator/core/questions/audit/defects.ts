/**
 * Deterministic defects: an option a reader can reject without understanding anything, found
 * per question rather than estimated. Any occurrence fails the audit, whatever the statistics.
 */
import type { Finding } from '../../kernel/findings.js';
import { findingFactory } from '../../kernel/findings.js';
import type { McqQuestion } from '../types.js';
import { optionFeatures } from './features.js';
import { auditFindings } from './findings.js';
import { questionSegment } from './segment.js';
import { letterOf } from './text.js';

const make = findingFactory(auditFindings);

/** The choice source a builder writes for a deliberate invalid-tool distractor (APTBench has that category). */
export const DECLARED_INVALID_TOOL = 'invalid_tool';

export interface DefectCounts {
  /** Distractors found verbatim in the prompt. */
  copiedOptions: number;
  /** Distractors calling a tool not offered, not declared as `invalid_tool`. */
  undeclaredInvalidTools: number;
  /** Distractors declared `invalid_tool` (and calling a tool not offered). */
  declaredInvalidTools: number;
  /** Golds calling a tool the question does not offer: the offered set is wrong. */
  goldToolNotOffered: number;
}

/** Checks every MCQ of one task; one finding per defect class, listing the questions. */
export function checkDefects(task: string, questions: readonly McqQuestion[], out: Finding[]): DefectCounts {
  const copied: string[] = [];
  const undeclared: string[] = [];
  const declared: string[] = [];
  const goldOff: string[] = [];
  const counts: DefectCounts = { copiedOptions: 0, undeclaredInvalidTools: 0, declaredInvalidTools: 0, goldToolNotOffered: 0 };
  for (const q of questions) {
    const f = optionFeatures(q);
    const sources = q.build?.choice_sources?.length === q.choices.length ? q.build.choice_sources : undefined;
    const copiedLetters: string[] = [];
    const undeclaredLetters: string[] = [];
    q.choices.forEach((_, i) => {
      if (i === q.gold) return;
      if (f.copied[i]) copiedLetters.push(letterOf(i));
      if (f.offTool[i]) {
        if (sources?.[i] === DECLARED_INVALID_TOOL) counts.declaredInvalidTools++;
        else undeclaredLetters.push(letterOf(i));
      }
    });
    if (f.offTool[q.gold]) {
      counts.goldToolNotOffered++;
      goldOff.push(q.id);
    }
    if (copiedLetters.length) {
      counts.copiedOptions += copiedLetters.length;
      copied.push(`${q.id}:${copiedLetters.join('')}`);
    }
    if (undeclaredLetters.length) {
      counts.undeclaredInvalidTools += undeclaredLetters.length;
      undeclared.push(`${q.id}:${undeclaredLetters.join('')}`);
    }
    if (sources?.some((s, i) => s === DECLARED_INVALID_TOOL && !f.offTool[i]) && questionSegment(q).offeredTools) declared.push(q.id);
  }
  const total = questions.length;
  if (copied.length) out.push(make('audit-option-copied', {}, { task, options: counts.copiedOptions, questions: copied.length, total, ids: copied.sort() }));
  if (undeclared.length) out.push(make('audit-undeclared-invalid-tool', {}, { task, options: counts.undeclaredInvalidTools, questions: undeclared.length, total, ids: undeclared.sort() }));
  if (goldOff.length) out.push(make('audit-gold-tool-not-offered', {}, { task, questions: goldOff.length, total, ids: goldOff.sort() }));
  if (declared.length) out.push(make('audit-declared-invalid-tool-offered', {}, { task, questions: declared.length, total, ids: declared.sort() }));
  return counts;
}
