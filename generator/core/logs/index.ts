/** Public API of the logs domain: readers, the matrix store, and merging. */
export * from './matrix.js';
export { logsFinding, logsFindings, type LogsFindingCode } from './findings.js';
export { readScoreTables, tableFormats, type ScoreTableOptions, type TableFormat } from './tables/index.js';
export { readTargets, targetSources, toScale, fractionScores, type TargetOptions, type TargetScale } from './targets/index.js';
export { readModelMapping, mapModelName, narrowUnusedAliases, type ModelMapping } from './mapping.js';
export { saveStore, loadStore, tryLoadStore, StoreError, STORE_FILES, STORE_FORMAT, STORE_VERSION, type ScoreStore } from './store.js';
export { mergeMatrices } from './merge.js';
export { ingestLogs, type IngestOptions, type Coverage, type CoverageCell, type SupersededRun } from './harness/ingest.js';
export { parseMetricRule, PREFERRED_METRICS, PREFERRED_FILTERS, type MetricRule } from './harness/metric-choice.js';
export { matrixCoverage, renderCoverage, countObserved } from './coverage.js';
