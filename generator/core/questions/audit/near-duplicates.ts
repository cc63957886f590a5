/**
 * Near-duplicates: the same (trajectory prefix, gold) asked more than once. Overlapping source
 * rows (APTBench's per-step prefix rows of one trajectory) yield the same question with other
 * distractors, other shots or a different tool list; exact-duplicate detection misses them,
 * and they weigh one decision several times. One finding per group, with its size.
 */
import type { Finding } from '../../kernel/findings.js';
import { findingFactory } from '../../kernel/findings.js';
import { sha256 } from '../../kernel/stable-json.js';
import { normaliseChoice } from '../normalise.js';
import type { Question } from '../types.js';
import { auditFindings } from './findings.js';
import { questionSegment, segmentStart } from './segment.js';
import { collapseWhitespace } from './text.js';

const make = findingFactory(auditFindings);

export interface NearDuplicateCounts {
  /** Groups of two or more questions sharing (trajectory prefix, gold). */
  groups: number;
  /** Questions beyond the first of each group. */
  extra: number;
  /** Distinct (trajectory prefix, gold) pairs among the task's questions. */
  distinct: number;
}

/** The trajectory prefix (question segment without choice and tool lists) and the gold, normalised; a digest, as the prefixes are long. */
export function nearDuplicateKey(q: Question): string {
  return sha256(nearDuplicateText(q));
}

function nearDuplicateText(q: Question): string {
  if (q.format === 'mcq') return `mcq\u0000${questionSegment(q).trajectory}\u0000${normaliseChoice(q.choices[q.gold] ?? '')}`;
  const { start } = segmentStart(q);
  return `completion\u0000${collapseWhitespace(q.prompt.slice(start))}\u0000${collapseWhitespace(q.targets[0] ?? '')}`;
}

export function checkNearDuplicates(task: string, questions: readonly Question[], out: Finding[]): NearDuplicateCounts {
  const groups = new Map<string, string[]>();
  for (const q of questions) {
    const key = nearDuplicateKey(q);
    const ids = groups.get(key) ?? [];
    ids.push(q.id);
    groups.set(key, ids);
  }
  const found = [...groups.values()].filter((ids) => ids.length > 1).map((ids) => ids.sort());
  found.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  let extra = 0;
  for (const ids of found) {
    extra += ids.length - 1;
    out.push(make('audit-near-duplicate', {}, { task, count: ids.length, firstId: ids[0], ids }));
  }
  return { groups: found.length, extra, distinct: groups.size };
}
