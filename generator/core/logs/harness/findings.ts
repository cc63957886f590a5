import type { FindingCatalog } from '../../kernel/findings.js';

/** The codes the harness-log reader raises (results files, samples files, records); part of `logsFindings`. */
export const harnessLogFindings = {
  'results-unreadable': {
    severity: 'error',
    title: 'Results file unreadable',
    message: (a) => `results file could not be used (${a.reason}); its run (${a.samples} sample file(s)) was not ingested`,
  },
  'samples-orphan': {
    severity: 'error',
    title: 'Samples file without a results file',
    message: (a) => `no results file with timestamp ${a.ts || '(none)'} beside this samples file for task ${a.task}; not ingested (model, metrics and hashes unknown)`,
  },
  'samples-missing': {
    severity: 'error',
    title: 'Task has no samples file',
    message: (a) => `${a.model}: results list task ${a.task} but there is no samples file for it in this run; no per-instance scores`,
  },
  'run-without-samples': {
    severity: 'warning',
    title: 'Run logged no samples',
    message: (a) => `${a.model} run ${a.ts || '(no timestamp)'} has aggregate results for ${a.tasks} task(s) but no samples files (run without --log_samples); nothing per-instance to ingest`,
  },
  'run-superseded': {
    severity: 'info',
    title: 'Older run superseded',
    message: (a) => `${a.model} run ${a.ts || '(no timestamp)'} superseded by ${a.by} for ${a.tasks}`,
  },
  'run-duplicate': {
    severity: 'info',
    title: 'Copy of a run',
    message: (a) => `${a.model} has two runs stamped ${a.ts || '(none)'} for ${a.task} with the same task hash and results; used ${a.kept} once`,
  },
  'run-conflict': {
    severity: 'error',
    title: 'Two different runs with one timestamp',
    message: (a) =>
      `${a.model} has two runs stamped ${a.ts || '(none)'} for ${a.task} with different content (this file and ${a.other}); neither was used — pin one with --run ${a.model}=<results file or folder>`,
  },
  'run-pin-ambiguous': {
    severity: 'error',
    title: 'Pinned run is ambiguous',
    message: (a) => `--run ${a.model}=${a.ts} matches several runs (${a.runs}); pin a results file or folder instead`,
  },
  'run-predict-only': {
    severity: 'warning',
    title: 'Predict-only run skipped',
    message: (a) => `${a.model} run ${a.ts || '(no timestamp)'} was run with --predict_only (metric bypass, no scores) for ${a.tasks}; skipped, other runs of these tasks are unaffected`,
  },
  'shard-overlap': {
    severity: 'error',
    title: 'Document in two shards',
    message: (a) => `${a.model} on ${a.task}: ${a.count} document(s) (first ${a.first}) were already read from ${a.other}; shards must be disjoint — the repeats were rejected`,
  },
  'shard-missing': {
    severity: 'error',
    title: 'Shard missing',
    message: (a) => `${a.model} on ${a.task}: of ${a.of} shards, missing ${a.missing}${a.strays !== 'none' ? `; shards of another split: ${a.strays}` : ''}; the model's coverage of ${a.task} is incomplete`,
  },
  'shard-gap': {
    severity: 'error',
    title: 'Shards leave documents out',
    message: (a) => `${a.model} on ${a.task}: ${a.runs} partial runs merged as shards cover ${a.covered} of ${a.total} documents; run the missing documents or pin one run with --run`,
  },
  'shard-without-question-ids': {
    severity: 'error',
    title: 'Shard without question ids',
    message: (a) => `${a.model} on ${a.task}: shard records carry no distinct doc "id", so shards (each numbered from doc 0) cannot be merged; ${a.records} record(s) rejected`,
  },
  'run-pin-missing': {
    severity: 'error',
    title: 'Pinned run not found',
    message: (a) => `--run ${a.model}=${a.ts} matches no run (runs of ${a.model}: ${a.available || 'none'})`,
  },
  'metric-not-found': {
    severity: 'error',
    title: 'Chosen metric not reported',
    message: (a) =>
      `task ${a.task}: metric ${a.metric}${a.filter ? `,${a.filter}` : ''} is not reported by ${a.lacking} of ${a.runs} run(s) (this results file is one); reported by all: ${a.shared}; reported by any: ${a.available}; task not ingested`,
  },
  'metric-no-default': {
    severity: 'warning',
    title: 'No per-instance metric to default to',
    message: (a) => `task ${a.task} reports only corpus-level or non-score metrics (${a.available}); not ingested — pass --metric ${a.task}=METRIC[,FILTER] if one of them is a per-sample score`,
  },
  'metric-choice-guessed': {
    severity: 'info',
    title: 'Metric chosen by fallback',
    message: (a) => `task ${a.task}: none of the preferred metrics is reported; using ${a.metric},${a.filter} (${a.reason}); pass --metric ${a.task}=METRIC[,FILTER] to choose`,
  },
  'metric-filter-choice': {
    severity: 'info',
    title: 'One filter chosen of several',
    message: (a) => `task ${a.task}: ${a.metric} is reported under filters ${a.filters}; using ${a.filter}`,
  },
  'samples-bad-json': {
    severity: 'error',
    title: 'Sample line is not JSON',
    message: (a) => `not a JSON record (${a.reason}); line rejected`,
  },
  'samples-truncated-line': {
    severity: 'error',
    title: 'Truncated last line',
    message: (a) => `the last line (${a.bytes} chars, no newline) is cut off, as when a run is killed mid-write; line rejected`,
  },
  'samples-invalid-utf8': {
    severity: 'error',
    title: 'Invalid UTF-8',
    message: () => `line is not valid UTF-8; line rejected`,
  },
  'samples-bad-record': {
    severity: 'error',
    title: 'Malformed sample record',
    message: (a) => `${a.reason}; record rejected`,
  },
  'samples-missing-metric': {
    severity: 'error',
    title: 'Sample lacks the chosen metric',
    message: (a) => `doc ${a.docId} has no ${a.metric} value; record rejected`,
  },
  'samples-bad-value': {
    severity: 'error',
    title: 'Metric value is not a number',
    message: (a) => `doc ${a.docId}: ${a.metric} is ${JSON.stringify(a.value)}, not a finite number; record rejected`,
  },
  'samples-content-hash-mismatch': {
    severity: 'error',
    title: 'Sample record edited after the run',
    message: (a) => `the record's ${a.field} is not the hash of its own content (the harness's sha256 recomputed here): edited after the harness wrote it; record rejected`,
  },
  'samples-out-of-range': {
    severity: 'error',
    title: 'Score outside [0, 1]',
    message: (a) => `doc ${a.docId}: ${a.metric} is ${a.value}, outside [0, 1] for a per-instance ${a.metric}; record rejected`,
  },
  'samples-metric-mismatch': {
    severity: 'error',
    title: 'Score disagrees with the response',
    message: (a) => `doc ${a.docId}: ${a.metric} is ${a.value} but the logged filtered_resps and target give ${a.expected}; record rejected`,
  },
  'task-hash-unchecked': {
    severity: 'warning',
    title: 'Task hash not in the results file',
    message: (a) => `the results file gives no task_hashes entry for ${a.task} (model ${a.model}), so the samples file cannot be matched to that run by hash; its records are taken on their own checks`,
  },
  'samples-check-skipped': {
    severity: 'warning',
    title: 'Integrity check not made',
    message: (a) => `${a.count} check(s) on this file's records could not be made, so their logged values are taken on trust: ${a.reasons}`,
  },
  'samples-empty': {
    severity: 'error',
    title: 'Empty samples file',
    message: () => `the samples file holds no records (a run cut off before writing, or an emptied file); nothing from it was ingested`,
  },
  'samples-duplicate-doc': {
    severity: 'error',
    title: 'Duplicate doc_id',
    message: (a) => `doc_id ${a.docId} (filter ${a.filter}) already appeared on line ${a.firstLine}; kept the first, rejected this one`,
  },
  'samples-count-mismatch': {
    severity: 'warning',
    title: 'Sample count differs from the results',
    message: (a) => `${a.found} ${a.filter} record(s) read but the results say ${a.expected} docs were evaluated${a.found < a.expected ? '; the rest are unobserved' : ''}`,
  },
  'aggregate-mismatch': {
    severity: 'error',
    title: 'Samples disagree with the results file',
    message: (a) => `mean ${a.metric} over ${a.count} samples is ${a.mean}, the results file says ${a.reported}: not this run's samples (swapped or edited); the file was not merged`,
  },
  'task-hash-mismatch': {
    severity: 'error',
    title: 'task_hash does not match the samples',
    message: (a) => `sha256 over the records' hashes is ${a.found}, results say ${a.expected}: the samples file is not the one this run wrote (edited, truncated or mixed up); the file was not merged`,
  },
  'prompt-hash-conflict': {
    severity: 'error',
    title: 'Same doc, different prompt',
    message: (a) =>
      `${a.model} on ${a.task}: ${a.count} doc(s) (first doc ${a.docId}) have a ${a.field} different from the ${a.majority} other model(s) — evaluated with a different prompt/target; those cells were not merged`,
  },
  'harness-version-mixed': {
    severity: 'warning',
    title: 'Runs from several harness versions',
    message: (a) => `runs come from harness versions ${a.versions}; scores are merged only where doc/prompt hashes agree`,
  },
  'hashes-unavailable': {
    severity: 'info',
    title: 'No hashes to check',
    message: (a) => `${a.model} on ${a.task}: records carry no doc/prompt/target hashes (harness ≤0.4.2); identity across models rests on doc_id alone`,
  },
} satisfies FindingCatalog;
