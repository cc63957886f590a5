import { findingFactory, type FindingCatalog } from '../kernel/findings.js';
import { harnessLogFindings } from './harness/findings.js';

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

  ...harnessLogFindings,

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
