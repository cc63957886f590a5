export { emitSuite, installIntoHarness, runCommand, type EmitOptions, type EmitResult, type InstallOptions } from './suite.js';
export { planSuite, MANIFEST_FILE, SUITE_FORMAT_VERSION, type PlanOptions, type PlannedTask, type SuitePlan } from './plan.js';
export { readManifest, siblingSuiteNames, type SuiteManifest, type WrittenFile } from './install.js';
export { TASK_KINDS, kindOf, type TaskKind, type McqScoring } from './kinds/index.js';
export { METRICS, type MetricName } from './metrics.js';
export { emitFindings } from './findings.js';
