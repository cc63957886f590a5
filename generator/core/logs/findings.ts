import { findingFactory, type FindingCatalog } from '../kernel/findings.js';

/**
 * Every code the log / table / target / store readers raise. Tests assert these codes;
 * the messages are only read by humans (render.ts is the one caller of `message`).
 */
export const logsFindings = {
  // ---- any reader -------------------------------------------------------------------
  'input-unreadable': {
    severity: 'error',
    title: 'Unreadable input',
    message: (a) => `cannot read this input: ${a.reason}`,
  },
  'input-missing': {
    severity: 'error',
    title: 'Input not found',
    message: (a) => `${a.input} does not exist`,
  },
  'input-unrecognised': {
    severity: 'error',
    title: 'Unrecognised input',
    message: (a) => `cannot tell what ${a.input} holds (${a.reason}); nothing was read from it`,
  },

  // ---- score tables -----------------------------------------------------------------
  'table-parse-error': {
    severity: 'error',
    title: 'CSV syntax error',
    message: (a) => `CSV syntax error (${a.reason}); the record starting on this line was rejected, reading resumed on the next line`,
  },
  'table-invalid-utf8': {
    severity: 'error',
    title: 'Invalid UTF-8 in a table row',
    message: () => `line is not valid UTF-8; row rejected (the rest of the file was read)`,
  },
  'table-unread-lines': {
    severity: 'error',
    title: 'Table abandoned after many syntax errors',
    message: (a) => `${a.errors} CSV syntax errors; the remaining ${a.lines} line(s) were not read and are counted as rejected`,
  },
  'table-bad-header': {
    severity: 'error',
    title: 'Missing table columns',
    message: (a) => `header ${JSON.stringify(a.found)} lacks the required column(s) ${JSON.stringify(a.missing)}; the file was not read`,
  },
  'table-bad-row': {
    severity: 'error',
    title: 'Row has the wrong number of fields',
    message: (a) => `row has ${a.found} field(s), the header has ${a.expected}; row rejected`,
  },
  'table-bad-score': {
    severity: 'error',
    title: 'Score is not a number',
    message: (a) => `score ${JSON.stringify(a.value)} is not a finite number; row rejected`,
  },
  'table-out-of-range': {
    severity: 'error',
    title: 'Score outside [0, 1]',
    message: (a) => `score ${a.value} is outside [0, 1] (per-instance scores are fractions); row rejected`,
  },
  'table-empty-id': {
    severity: 'error',
    title: 'Empty instance or model id',
    message: () => `the id cell is empty; row rejected`,
  },
  'table-duplicate-id': {
    severity: 'error',
    title: 'Duplicate id with a different score',
    message: (a) =>
      `id ${JSON.stringify(a.id)} already appeared on line ${a.firstLine} with score ${a.kept}; this row's ${a.value} was rejected (choose --duplicates first|last to accept a policy)`,
  },
  'table-duplicate-resolved': {
    severity: 'warning',
    title: 'Duplicate id resolved by the chosen policy',
    message: (a) =>
      `id ${JSON.stringify(a.id)} repeats line ${a.firstLine} with a different score; kept ${a.kept}, skipped ${a.value} (--duplicates ${a.policy})`,
  },
  'table-duplicate-same': {
    severity: 'info',
    title: 'Duplicate ids with equal scores',
    message: (a) => `${a.count} row(s) repeat an earlier id with the same score; the repeats were skipped`,
  },
  'table-metric-mixed': {
    severity: 'warning',
    title: 'Mixed metrics in one task',
    message: (a) => `metric ${JSON.stringify(a.found)} differs from ${JSON.stringify(a.expected)} used elsewhere for task ${a.task}; the task records both`,
  },
  'table-layout': {
    severity: 'error',
    title: 'Cannot place table file',
    message: (a) => `cannot derive benchmark and model from the path (${a.reason}); expected <root>/<benchmark>/[<subdir>/]<Model>.csv`,
  },
  'table-sparse-file': {
    severity: 'info',
    title: 'Model file covers part of a task',
    message: (a) => `${a.model} has ${a.present} of the ${a.total} ids seen for ${a.task}; the other cells are unobserved (not zero)`,
  },
  'table-constant-file': {
    severity: 'info',
    title: 'Every score in a file is the same',
    message: (a) => `all ${a.rows} scores are ${a.value}; check that this run did not fail wholesale`,
  },

  // ---- matrix assembly --------------------------------------------------------------
  'cell-conflict': {
    severity: 'error',
    title: 'Two sources disagree on one cell',
    message: (a) =>
      `${a.model} × ${a.instance}: ${a.value} here conflicts with ${a.kept} from ${a.keptFrom}; kept the first, rejected this one`,
  },
  'instance-hash-conflict': {
    severity: 'error',
    title: 'Same instance, different content',
    message: (a) =>
      a.model
        ? `${a.model} on ${a.task}: ${a.count} doc(s) (first doc ${a.docId}) have a doc_hash different from the ${a.majority} other model(s) — evaluated on different data; those cells were not merged`
        : `${a.instance} has doc_hash ${a.found} here but ${a.kept} elsewhere: the sources evaluated different data; cells from here were not merged`,
  },
  'instance-metric-conflict': {
    severity: 'warning',
    title: 'Instance scored with different metrics',
    message: (a) => `${a.instance} is scored with ${a.found} here but ${a.kept} elsewhere; kept ${a.kept} in the instance index`,
  },

  // ---- model-name mapping -----------------------------------------------------------
  'mapping-bad-entry': {
    severity: 'error',
    title: 'Bad mapping entry',
    message: (a) => `mapping entry ${JSON.stringify(a.entry)} is not alias → canonical name (${a.reason}); entry ignored`,
  },
  'mapping-duplicate-alias': {
    severity: 'error',
    title: 'Alias mapped twice',
    message: (a) => `alias ${JSON.stringify(a.alias)} maps to both ${JSON.stringify(a.first)} and ${JSON.stringify(a.second)}; kept the first`,
  },
  'mapping-chain': {
    severity: 'warning',
    title: 'Mapping target is itself an alias',
    message: (a) => `${JSON.stringify(a.alias)} → ${JSON.stringify(a.target)}, which is itself mapped to ${JSON.stringify(a.next)}; followed the chain`,
  },
  'mapping-unused': {
    severity: 'info',
    title: 'Mapping entries never used',
    message: (a) => `${a.count} mapping alias(es) matched no model: ${a.aliases}`,
  },

  // ---- agentic targets --------------------------------------------------------------
  'target-bad-value': {
    severity: 'error',
    title: 'Target outcome is not usable',
    message: (a) => `${a.what} ${JSON.stringify(a.value)} is not ${a.expected}; entry rejected`,
  },
  'target-unscored': {
    severity: 'info',
    title: 'Instances without an outcome',
    message: (a) => `${a.count} instance(s) have resolved = null (run produced no verdict); left unobserved, not counted as failures`,
  },
  'target-duplicate': {
    severity: 'error',
    title: 'Target score given twice',
    message: (a) => `${a.model} on ${a.target}: ${a.value} conflicts with ${a.kept} read earlier; kept the first`,
  },
  'target-scale-mixed': {
    severity: 'warning',
    title: 'Target scale differs between sources',
    message: (a) => `${a.target} is on the ${a.found} scale here but ${a.kept} elsewhere; converted to ${a.kept}`,
  },
  'target-scale-inferred': {
    severity: 'info',
    title: 'Target scale inferred',
    message: (a) => `no scale given for ${a.target}; values in [${a.min}, ${a.max}] read as '${a.scale}'`,
  },
  'target-scale-ambiguous': {
    severity: 'warning',
    title: 'Target values mix fractions and percentages',
    message: (a) =>
      `${a.target}: ${a.fractions} value(s) in (0, 1] beside ${a.percents} above 1 and no scale given; read as '${a.scale}' they would mix two scales. Pass --scale fraction or --scale percent (or fix the values)`,
  },
  'target-aggregate-mismatch': {
    severity: 'info',
    title: 'Published score differs from per-instance mean',
    message: (a) =>
      `${a.model} on ${a.target}: published ${a.published} (${a.metric}) vs ${a.derived} from ${a.instances} per-instance outcomes`,
  },

  // ---- harness logs -----------------------------------------------------------------
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

  // ---- store ------------------------------------------------------------------------
  'targets-model-not-in-store': {
    severity: 'warning',
    title: 'Target scores for models with no suite scores',
    message: (a) =>
      `target "${a.target}": ${a.count} of ${a.total} model(s) have no suite scores in this store (e.g. ${a.examples}), so they cannot be fitted on; name runs the way the targets do (a run plan's model-names.csv with --mapping) or map the names with --mapping`,
  },
  'store-nothing-accepted': {
    severity: 'error',
    title: 'Nothing to store',
    message: (a) => `no score was accepted from ${a.inputs}; no store was written`,
  },
  'store-missing-file': {
    severity: 'error',
    title: 'Store file missing',
    message: (a) => `the store lacks ${a.name}`,
  },
  'store-bad-manifest': {
    severity: 'error',
    title: 'Store manifest invalid',
    message: (a) => `store.json is invalid: ${a.reason}`,
  },
  'store-format-version': {
    severity: 'error',
    title: 'Unsupported store format',
    message: (a) => `store format ${a.found} is not supported (this version reads ${a.supported})`,
  },
  'store-size-mismatch': {
    severity: 'error',
    title: 'Store file has the wrong size',
    message: (a) => `${a.name} has ${a.found} bytes; ${a.models} models × ${a.instances} instances need ${a.expected}`,
  },
  'store-hash-mismatch': {
    severity: 'error',
    title: 'Store file changed since it was written',
    message: (a) => `${a.name} has sha256 ${a.found}, the manifest says ${a.expected}`,
  },
  'store-bad-mask': {
    severity: 'error',
    title: 'Store mask holds values other than 0/1',
    message: (a) => `observed.u8 holds ${a.count} byte(s) that are neither 0 nor 1`,
  },
} satisfies FindingCatalog;

export type LogsFindingCode = keyof typeof logsFindings;
export const logsFinding = findingFactory(logsFindings);
