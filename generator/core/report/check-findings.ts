import type { FindingCatalog } from '../kernel/findings.js';

/** Codes `aptpace check` raises beyond PACE's own (threshold and prediction codes come from pace/findings.ts). */
export const checkFindings = {
  'check-missing-too-high': {
    severity: 'error',
    title: 'Too many proxy instances missing',
    message: (a) =>
      `target ${a.target}: ${a.missing} of ${a.total} proxy instances are missing (${(100 * a.fraction).toFixed(1)}%), more than --max-missing ${a.maxMissing}; the prediction is not trusted`,
  },
  'check-cannot-judge': {
    severity: 'error',
    title: 'Prediction cannot be vouched for',
    message: (a) => `target ${a.target}: ${a.model} is not passed — ${a.reasons}. Pass --allow-unproven to accept such predictions`,
  },
  'check-cannot-judge-allowed': {
    severity: 'warning',
    title: 'Unproven prediction accepted',
    message: (a) => `target ${a.target}: ${a.model} is judged although ${a.reasons} (--allow-unproven)`,
  },
  'check-history-bad-line': {
    severity: 'error',
    title: 'Unreadable history line',
    message: (a) => `not a check history entry (${a.reason}); the history file is left untouched (pass --force to drop such lines)`,
  },
  'check-history-line-dropped': {
    severity: 'warning',
    title: 'History line dropped',
    message: (a) => `not a check history entry (${a.reason}); dropped from the history because of --force`,
  },
  'check-history-duplicate-model': {
    severity: 'warning',
    title: 'Checkpoint repeated in the history',
    message: (a) => `checkpoint ${a.model} appears more than once in the history; the last line is kept`,
  },
  'check-history-other-model-file': {
    severity: 'info',
    title: 'History from another model file',
    message: (a) =>
      `${a.count} earlier checkpoint(s) in the history (${a.models}) were predicted with a different model file; their scores are shown but come from another fit`,
  },
  'check-history-not-updated': {
    severity: 'info',
    title: 'History not updated',
    message: (a) => `the history is not updated: ${a.reason}`,
  },
  'tracker-failed': {
    severity: 'warning',
    title: 'Not logged to the tracker',
    message: (a) => `${a.tracker}: the check was not logged (${a.reason}); the verdict and report stand`,
  },
  'tracker-logged': {
    severity: 'info',
    title: 'Logged to the tracker',
    message: (a) => `${a.tracker}: logged ${a.metrics} metrics of ${a.model} to ${a.project}/${a.run}`,
  },
  'report-no-checkpoints': {
    severity: 'error',
    title: 'No checkpoints to report',
    message: (a) => `the store holds no model besides the fit's training models and the reference models (${a.excluded} excluded), and the history adds none; nothing to plot`,
  },
  'report-history-only': {
    severity: 'info',
    title: 'Checkpoint taken from the history',
    message: (a) => `${a.count} checkpoint(s) (${a.models}) are not in the store; their predictions are shown as recorded by check`,
  },
} satisfies FindingCatalog;

export type CheckFindingCode = keyof typeof checkFindings;
