import { findingFactory, type FindingCatalog } from '../kernel/findings.js';

/**
 * Everything the trajectory readers and the evidence join can say about their inputs.
 * Errors reject a file or record (and make the command exit 1); warnings keep the record.
 */
export const trajectoryFindings = {
  'traj-input-missing': {
    severity: 'error',
    title: 'Input not found',
    message: (a) => `${a.input} is neither a file, a directory nor a glob that matches anything`,
  },
  'traj-file-unreadable': {
    severity: 'error',
    title: 'File unreadable',
    message: (a) => `cannot read the file: ${a.reason}`,
  },
  'traj-file-too-large': {
    severity: 'error',
    title: 'File too large',
    message: (a) =>
      `file is ${a.bytes} bytes, above the ${a.limit}-byte limit for whole-document JSON; store it as .jsonl (one trajectory per line, streamed) or raise --max-file-mb`,
  },
  'traj-line-too-long': {
    severity: 'error',
    title: 'Line too long',
    message: (a) => `this line is ${a.bytes} bytes, above the ${a.limit}-byte limit for one record (raise --max-file-mb if it is real); it was skipped without being held in memory`,
  },
  'traj-invalid-utf8': {
    severity: 'error',
    title: 'Invalid UTF-8',
    message: (a) => `bytes at offset ${a.offset} are not valid UTF-8; expected UTF-8 text${a.scope === 'line' ? ' (this line is skipped)' : ''}`,
  },
  'traj-malformed-json': {
    severity: 'error',
    title: 'Malformed JSON',
    message: (a) => `not valid JSON${a.column ? ` (column ${a.column})` : ''}: ${a.detail}`,
  },
  'traj-truncated': {
    severity: 'error',
    title: 'Truncated JSON',
    message: (a) => `JSON ends early${a.unterminated ? ' on an unterminated last line' : ''}: the file looks cut off (${a.detail})`,
  },
  'traj-empty-file': {
    severity: 'error',
    title: 'Empty file',
    message: () => 'the file holds no data; expected a trajectory (JSON) or trajectories (JSONL)',
  },
  'traj-unknown-format': {
    severity: 'error',
    title: 'Unknown format',
    message: (a) =>
      `no reader recognises this ${a.shape}${a.keys ? ` (top-level keys: ${a.keys})` : ''}; expected one of: ${a.expected}`,
  },
  'traj-format-mismatch': {
    severity: 'error',
    title: 'Not the forced format',
    message: (a) => `--format ${a.format} was given but this record does not look like ${a.title}`,
  },
  'traj-field-ignored': {
    severity: 'warning',
    title: 'Field of the wrong type ignored',
    message: (a) => `expected ${a.expected}, found ${a.actual}; the field was ignored`,
  },
  'traj-wrong-type': {
    severity: 'error',
    title: 'Wrong type',
    message: (a) => `expected ${a.expected}, found ${a.actual}`,
  },
  'traj-missing-field': {
    severity: 'error',
    title: 'Missing field',
    message: (a) => `required field is missing; expected ${a.expected}`,
  },
  'traj-empty': {
    severity: 'error',
    title: 'Empty trajectory',
    message: (a) => `the trajectory has no agent steps${a.detail ? ` (${a.detail})` : ''}; nothing to learn from`,
  },
  'traj-reader-failed': {
    severity: 'error',
    title: 'Record not understood',
    message: (a) => `the ${a.format} reader could not convert this record (${a.detail}); it is skipped — please report the shape`,
  },
  'traj-schema-invalid': {
    severity: 'error',
    title: 'Not a canonical trajectory',
    message: (a) => `${a.detail}${a.expected ? `; expected ${a.expected}` : ''}`,
  },
  'traj-bad-tool-arguments': {
    severity: 'warning',
    title: 'Tool arguments are not JSON',
    message: (a) => `tool call ${a.tool} has arguments that are not a JSON object (${a.detail}); kept as args.raw`,
  },
  'traj-missing-goal': {
    severity: 'warning',
    title: 'No task statement',
    message: () => 'no problem statement / question was found; questions that show the goal cannot be built from this trajectory',
  },
  'traj-unpaired-observation': {
    severity: 'warning',
    title: 'Observation without action',
    message: (a) => `observation ${a.id} points at action ${a.cause}, which is not in the history; ignored`,
  },
  'traj-instance-id-case': {
    severity: 'warning',
    title: 'Instance id differs only in letter case',
    message: (a) => `instance id ${a.id} differs from ${a.canonical}, read earlier, only in letter case; it is recorded as ${a.canonical} so both runs are one instance`,
  },
  'traj-duplicate-id': {
    severity: 'warning',
    title: 'Duplicate trajectory id',
    message: (a) => `traj_id ${a.trajId} was already read from ${a.first}`,
  },
  'traj-not-a-trajectory': {
    severity: 'info',
    title: 'Evaluation file, not a trajectory',
    message: (a) =>
      a.kind === 'report'
        ? `this is an evaluation report (${a.entries} verdicts); pass it with --report to use it as success evidence`
        : `this holds ${a.entries} predictions (patches), not verdicts; skipped — predictions are not evidence of success`,
  },
  'traj-skipped-extension': {
    severity: 'info',
    title: 'Skipped file',
    message: (a) => `${a.count} file(s) in ${a.dir} skipped: not .json, .jsonl, .ndjson or .traj`,
  },
  'evidence-unreadable': {
    severity: 'error',
    title: 'Report unreadable',
    message: (a) => `cannot use this report: ${a.reason}`,
  },
  'evidence-unknown-shape': {
    severity: 'error',
    title: 'Unknown report shape',
    message: (a) =>
      `not a recognised evaluation report; expected {instance_id: {resolved}}, a list of resolved ids, SWE-bench {resolved_ids, unresolved_ids} / {resolved: [...]}, or JSONL rows {instance_id, resolved|label}${a.keys ? ` (found keys: ${a.keys})` : ''}`,
  },
  'evidence-predictions-only': {
    severity: 'warning',
    title: 'Predictions are not evidence',
    message: (a) => `this file holds ${a.entries} predictions (model patches) without verdicts; it proves nothing about success and is ignored`,
  },
  'evidence-conflict': {
    severity: 'warning',
    title: 'Conflicting evidence',
    message: (a) => `instance ${a.instance} is ${a.first ? 'resolved' : 'unresolved'} in ${a.firstFile} but ${a.second ? 'resolved' : 'unresolved'} in ${a.secondFile}; counted as unresolved`,
  },
  'evidence-overrides-label': {
    severity: 'warning',
    title: 'Report contradicts the label',
    message: (a) => `the trajectory's own label says success=${a.label} but ${a.report} says ${a.verdict}; the report wins`,
  },
  'evidence-unmatched': {
    severity: 'info',
    title: 'Report entries without a trajectory',
    message: (a) => `${a.count} of ${a.total} verdicts in this report match no trajectory read (e.g. ${a.examples})`,
  },
} satisfies FindingCatalog;

export type TrajectoryFindingCode = keyof typeof trajectoryFindings;
export const trajFinding = findingFactory<TrajectoryFindingCode>(trajectoryFindings);
