import type { FindingCatalog } from '../../kernel/findings.js';

const list = (ids: unknown) => {
  const all = Array.isArray(ids) ? ids.map(String) : [];
  return all.length <= 5 ? all.join(', ') : `${all.slice(0, 5).join(', ')} and ${all.length - 5} more`;
};

/** Codes raised by `aptpace review` and by status files read during a build. */
export const reviewFindings = {
  'review-status-missing': {
    severity: 'error',
    title: 'Review status file missing',
    message: (a) => `no review status file at ${a.file}; run \`aptpace review\` and apply decisions first`,
  },
  'review-status-invalid-utf8': {
    severity: 'error',
    title: 'Invalid UTF-8 in a status file',
    message: () => 'line is not valid UTF-8; skipped',
  },
  'review-status-invalid-json': {
    severity: 'error',
    title: 'Invalid JSON in a status file',
    message: (a) => `line is not valid JSON (${a.reason}); skipped`,
  },
  'review-status-invalid-entry': {
    severity: 'error',
    title: 'Invalid review entry',
    message: (a) => `${a.problem}; skipped`,
  },
  'review-status-unterminated-line': {
    severity: 'warning',
    title: 'Unterminated last line',
    message: () => 'last line has no trailing newline; read anyway',
  },
  'review-status-unknown-field': {
    severity: 'warning',
    title: 'Unknown field in a review entry',
    message: (a) => `field ${a.field} is not part of a review entry and will not be kept`,
  },
  'review-status-duplicate-id': {
    severity: 'warning',
    title: 'Question reviewed twice in one file',
    message: (a) => `id ${a.id} already had a decision at line ${a.firstLine}; the later line wins`,
  },
  'review-status-stale': {
    severity: 'warning',
    title: 'Decisions for questions no longer built',
    message: (a) => `${a.count} decision(s) in ${a.file} refer to questions not in this set (${list(a.ids)}); they are kept, not dropped`,
  },
  'review-status-outdated': {
    severity: 'warning',
    title: 'Decisions made on an older version of a question',
    message: (a) => `${a.count} question(s) changed since they were reviewed in ${a.file} (${list(a.ids)}); they count as unreviewed until reviewed again`,
  },
  'review-decision-unknown-id': {
    severity: 'error',
    title: 'Decision for an unknown question',
    message: (a) => `id ${a.id} is not in the question set; decision not applied`,
  },
  'review-status-not-rewritten': {
    severity: 'error',
    title: 'Status file left untouched',
    message: (a) => `${a.file} has ${a.rejected} unreadable line(s) that rewriting would drop; fix them or pass --force`,
  },
  'review-pending': {
    severity: 'info',
    title: 'Questions awaiting review',
    message: (a) => `${a.count} question(s) are not yet approved or rejected`,
  },
} satisfies FindingCatalog;

export type ReviewFindingCode = keyof typeof reviewFindings;
