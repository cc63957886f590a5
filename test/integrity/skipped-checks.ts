/**
 * Inputs on which an ingest check cannot be made: records without the content their hash or
 * metric is checked against, results files without the task's hash. Used by fuzz.test.ts: each
 * must come back as a finding naming the skipped check, never as a silent pass.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { topLevelSpans } from '../../generator/core/logs/harness/json-text.js';

export type SkipCode = 'samples-check-skipped' | 'task-hash-unchecked';

/** The line without its top-level `key` (text cut, the rest byte for byte, so the other hashes still hold). */
export function dropField(line: string, key: string): string {
  const at = topLevelSpans(line)?.get(key);
  if (!at) return line;
  const keyStart = line.lastIndexOf(JSON.stringify(key), at[0]);
  const after = line.slice(at[1]).replace(/^\s*,\s*/, '');
  const before = line.slice(0, keyStart).replace(/,\s*$/, after.startsWith('}') ? '' : ', ');
  return before.endsWith(', ') || before.endsWith('{') ? before + after : `${before}${after}`;
}

/** The line with the top-level `key`'s raw value replaced. */
export function setField(line: string, key: string, raw: string): string {
  const at = topLevelSpans(line)?.get(key);
  return at ? line.slice(0, at[0]) + raw + line.slice(at[1]) : line;
}

export interface SkipMutation {
  name: string;
  /** Multiple-choice `acc` tasks only (the check skipped is the recomputation from responses). */
  mcOnly?: boolean;
  /** Edits the samples lines of one file (returns the new lines), or the results JSON. */
  lines?: (lines: string[], pick: (n: number) => number) => string[];
  results?: (json: Record<string, any>, task: string) => void;
  expect: SkipCode;
}

const onOne = (edit: (line: string) => string) => (lines: string[], pick: (n: number) => number) => {
  const i = pick(lines.length);
  return lines.map((l, k) => (k === i ? edit(l) : l));
};

export const SKIP_MUTATIONS: SkipMutation[] = [
  { name: 'no filtered_resps', mcOnly: true, lines: onOne((l) => dropField(l, 'filtered_resps')), expect: 'samples-check-skipped' },
  { name: 'empty filtered_resps', mcOnly: true, lines: onOne((l) => setField(l, 'filtered_resps', '[]')), expect: 'samples-check-skipped' },
  {
    name: 'acc swapped 0↔1 in two records whose filtered_resps are gone',
    mcOnly: true,
    lines: (lines) => {
      const one = lines.findIndex((l) => /"acc": 1\.0/.test(l));
      const zero = lines.findIndex((l) => /"acc": 0\.0/.test(l));
      if (one < 0 || zero < 0) return lines.map((l) => dropField(l, 'filtered_resps'));
      return lines.map((l, k) => (k === one ? dropField(setField(l, 'acc', '0.0'), 'filtered_resps') : k === zero ? dropField(setField(l, 'acc', '1.0'), 'filtered_resps') : l));
    },
    expect: 'samples-check-skipped',
  },
  { name: 'no target', lines: onOne((l) => dropField(l, 'target')), expect: 'samples-check-skipped' },
  { name: 'target as a number', mcOnly: true, lines: onOne((l) => setField(l, 'target', '0')), expect: 'samples-check-skipped' },
  { name: 'no arguments (prompt hash without prompt)', lines: onOne((l) => dropField(l, 'arguments')), expect: 'samples-check-skipped' },
  { name: 'arguments without gen_args_0', lines: onOne((l) => setField(l, 'arguments', '{}')), expect: 'samples-check-skipped' },
  { name: 'no doc (doc hash without doc)', lines: onOne((l) => dropField(l, 'doc')), expect: 'samples-check-skipped' },
  { name: 'task_hashes null', results: (j) => void (j.task_hashes = null), expect: 'task-hash-unchecked' },
  { name: "the task's hash missing", results: (j, task) => void delete j.task_hashes?.[task], expect: 'task-hash-unchecked' },
  { name: 'task_hashes a string', results: (j) => void (j.task_hashes = 'x'), expect: 'task-hash-unchecked' },
];

/** Applies `m` to the run folder's file for `task` (samples file or results file). */
export function applySkipMutation(m: SkipMutation, samplesFile: string, resultsFile: string, task: string, pick: (n: number) => number): void {
  if (m.lines) {
    const lines = readFileSync(samplesFile, 'utf8').split('\n').filter(Boolean);
    writeFileSync(samplesFile, `${m.lines(lines, pick).join('\n')}\n`);
  }
  if (m.results) {
    const json = JSON.parse(readFileSync(resultsFile, 'utf8'));
    m.results(json, task);
    writeFileSync(resultsFile, JSON.stringify(json));
  }
}
