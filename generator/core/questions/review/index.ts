export { reviewFindings } from './findings.js';
export {
  REVIEW_STATUSES,
  filterApproved,
  isOutdated,
  reviewContentHash,
  loadReviewStatus,
  mergeDecisions,
  reviewCoverage,
  serializeStatus,
  staleFindings,
  type LoadedStatus,
  type MergeResult,
  type ReviewCoverage,
  type ReviewStatus,
  type ReviewStatusValue,
  type ReviewStatuses,
} from './status.js';
export { renderReviewPage, escapeHtml, jsonForScript, cspHash, REVIEW_PAGE_MARKER, type ReviewPageOptions } from './page.js';
