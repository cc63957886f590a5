import type { FindingCatalog } from '../kernel/findings.js';

/** Codes raised while reading, validating and building questions. */
export const questionFindings = {
  'question-missing-file': {
    severity: 'error',
    title: 'Question file missing',
    message: (a) => `cannot read question file: ${a.reason}`,
  },
  'question-file-wrong-kind': {
    severity: 'error',
    title: 'Not a question file',
    message: (a) => `this is a file of ${a.kind}, not questions (${a.lines} line(s) rejected); ${a.hint}`,
  },
  'question-invalid-utf8': {
    severity: 'error',
    title: 'Invalid UTF-8',
    message: () => 'line is not valid UTF-8; skipped',
  },
  'question-invalid-json': {
    severity: 'error',
    title: 'Invalid JSON',
    message: (a) => `line is not valid JSON (${a.reason}); skipped`,
  },
  'question-unterminated-line': {
    severity: 'warning',
    title: 'Unterminated last line',
    message: () => 'last line has no trailing newline (was the writer interrupted?); read anyway',
  },
  'question-schema': {
    severity: 'error',
    title: 'Question does not match the schema',
    message: (a) => `${a.problem}`,
  },
  'question-gold-out-of-range': {
    severity: 'error',
    title: 'Gold index out of range',
    message: (a) => `gold is ${a.gold} but there are only ${a.choices} choices`,
  },
  'question-golds-invalid': {
    severity: 'error',
    title: 'Multi-select golds are not a valid answer set',
    message: (a) => `golds ${a.golds} ${a.problem}`,
  },
  'question-duplicate-choice': {
    severity: 'error',
    title: 'Two choices are identical',
    message: (a) => `choices ${a.first} and ${a.second} are identical after normalisation`,
  },
  'question-stem-not-at-end': {
    severity: 'warning',
    title: 'Prompt does not end with its answer stem',
    message: (a) => `the prompt should end with the answer stem ${JSON.stringify(a.stem)} so a base model continues right after it`,
  },
  'question-task-mismatch': {
    severity: 'warning',
    title: 'Task name does not match the kind',
    message: (a) => `task ${a.task} is not the default for kind ${a.kind} (${a.expected})`,
  },
  'question-duplicate-id': {
    severity: 'error',
    title: 'Duplicate question id',
    message: (a) => `id ${a.id} already appeared at line ${a.firstLine}${a.firstFile ? ` of ${a.firstFile}` : ''}`,
  },
  'build-audit-failed': {
    severity: 'error',
    title: 'The built set failed its audit',
    message: (a) => `the audit failed (${a.tasks}): the set is written as ${a.file}, not as ${a.out}; emit refuses it without --allow-failed-audit (build with --no-audit to write it under its own name unchecked)`,
  },
  'build-no-trajectories': {
    severity: 'error',
    title: 'No usable trajectories',
    message: (a) => `no trajectories to build from (${a.reason})`,
  },
  'build-unproven-excluded': {
    severity: 'info',
    title: 'Unproven trajectories excluded',
    message: (a) => `${a.count} trajectories without evidence of success were left out (pass --include-unproven to use them)`,
  },
  'build-kind-empty': {
    severity: 'warning',
    title: 'A requested kind produced no question',
    message: (a) => `kind ${a.kind} produced no question (${a.reasons || 'no eligible trajectory'})`,
  },
  'build-template-missing': {
    severity: 'error',
    title: 'Prompt template missing',
    message: (a) => `no template ${a.template} in ${a.dir}`,
  },
  'build-template-error': {
    severity: 'error',
    title: 'Prompt template failed',
    message: (a) => `template ${a.template} failed: ${a.reason}`,
  },
  'build-trajectory-invalid': {
    severity: 'error',
    title: 'Trajectory line rejected',
    message: (a) => `not a canonical trajectory: ${a.reason}`,
  },
  'build-review-unapproved': {
    severity: 'info',
    title: 'Questions dropped by review',
    message: (a) => `${a.count} questions are not approved in ${a.file} and were left out`,
  },
  'build-llm-failed': {
    severity: 'warning',
    title: 'Model call failed',
    message: (a) => `model ${a.purpose} failed for ${a.traj_id}; used the deterministic fallback (${a.reason})`,
  },
  'build-duplicate-question': {
    severity: 'info',
    title: 'Identical question dropped',
    message: (a) => `question ${a.id} was built twice (from ${a.traj_id}); kept the first`,
  },
} satisfies FindingCatalog;

export type QuestionFindingCode = keyof typeof questionFindings;
