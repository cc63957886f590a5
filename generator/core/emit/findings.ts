import type { FindingCatalog } from '../kernel/findings.js';

/** Codes raised while compiling questions into a harness task suite and installing it. */
export const emitFindings = {
  'emit-audit-failed': {
    severity: 'error',
    title: 'The question set failed its audit',
    message: (a) => `${a.file} is a set whose build audit failed (its name ends in .audit-failed.jsonl); nothing emitted. Fix the set, or pass --allow-failed-audit to emit it anyway`,
  },
  'emit-small-task': {
    severity: 'warning',
    title: 'Task too small to carry weight',
    message: (a) => `task ${a.task} has ${a.docs} document(s): in the macro average it counts as much as any other task, on ${a.docs} question(s)`,
  },
  'emit-no-questions': {
    severity: 'error',
    title: 'No questions to emit',
    message: (a) => (a.reason === 'all-fewshot' ? 'every question is in the few-shot split; nothing is left to evaluate' : 'the question set is empty; nothing to emit'),
  },
  'emit-name-invalid': {
    severity: 'error',
    title: 'Invalid suite or task name',
    message: (a) => `${a.kind} name ${JSON.stringify(a.name)} must be 1-100 characters of [A-Za-z0-9_-], starting with a letter or digit; the harness uses names in file names, fnmatch patterns and comma lists`,
  },
  'emit-name-builtin': {
    severity: 'error',
    title: 'Name clashes with a built-in harness task',
    message: (a) => `${a.kind} name ${JSON.stringify(a.name)} is already a task, group or tag in lm-eval ${a.harnessVersion}; an include-path task would silently replace it. Choose another name`,
  },
  'emit-name-duplicate': {
    severity: 'error',
    title: 'Name used twice in the suite',
    message: (a) => `${a.kind} name ${JSON.stringify(a.name)} is also used as ${a.other}; harness names must be unique`,
  },
  'emit-mcq-too-few-choices': {
    severity: 'error',
    title: 'Multiple choice with fewer than two choices',
    message: (a) => `question ${a.id} has ${a.count} choice(s); a multiple-choice question needs at least 2`,
  },
  'emit-mcq-too-many-choices': {
    severity: 'error',
    title: 'Too many choices for letter scoring',
    message: (a) => `question ${a.id} has ${a.count} choices; letter scoring supports at most ${a.max} (A-Z)`,
  },
  'emit-mcq-gold-out-of-range': {
    severity: 'error',
    title: 'Gold index out of range',
    message: (a) => `question ${a.id} has gold ${a.gold} but only ${a.count} choices`,
  },
  'emit-empty-choice': {
    severity: 'error',
    title: 'Empty choice',
    message: (a) => `question ${a.id} has an empty choice at index ${a.index}; the harness cannot score an empty continuation`,
  },
  'emit-empty-prompt': {
    severity: 'error',
    title: 'Empty prompt',
    message: (a) => `question ${a.id} has an empty prompt; the harness refuses blank contexts`,
  },
  'emit-invalid-text': {
    severity: 'error',
    title: 'Text is not valid Unicode',
    message: (a) => `question ${a.id} contains a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which cannot be written as UTF-8`,
  },
  'emit-completion-no-targets': {
    severity: 'error',
    title: 'Completion without a reference answer',
    message: (a) => `question ${a.id} has no non-empty target after first-line normalisation`,
  },
  'emit-task-mixed': {
    severity: 'error',
    title: 'Task mixes incompatible questions',
    message: (a) => `task ${a.task} mixes ${a.field} values ${JSON.stringify(a.values)}; one harness task needs one output type and one scoring. Split it into separate tasks`,
  },
  'emit-stop-sequences-differ': {
    severity: 'warning',
    title: 'Stop sequences differ within a task',
    message: (a) => `task ${a.task}: questions use different stop sequences; the task stops at any of ${JSON.stringify(a.union)}`,
  },
  'emit-fewshot-overlap': {
    severity: 'warning',
    title: 'Few-shot example is also a test question',
    message: (a) => `few-shot example ${a.id} duplicates test question ${a.testId} (${a.reason}); it was dropped from the few-shot pool so no document sees itself`,
  },
  'emit-duplicate-id': {
    severity: 'error',
    title: 'Two questions share an id',
    message: (a) => `question id ${a.id} is used twice${a.firstRecord === undefined ? '' : ` (first at record ${a.firstRecord})`}; ids must be unique within the test questions and within the few-shot pool`,
  },
  'emit-fewshot-self-reference': {
    severity: 'error',
    title: 'Question lists itself as an in-prompt example',
    message: (a) => `question ${a.id} names itself in build.fewshot_ids; its prompt would contain its own answer`,
  },
  'emit-fewshot-short': {
    severity: 'info',
    title: 'Fewer few-shot examples than requested',
    message: (a) => `task ${a.task}: ${a.available} few-shot example(s) available, ${a.requested} requested; using ${a.available}`,
  },
  'emit-fewshot-none': {
    severity: 'info',
    title: 'Task has no few-shot examples',
    message: (a) => `task ${a.task}: no few-shot examples in the pool; it runs zero-shot`,
  },
  'emit-fewshot-doubled': {
    severity: 'warning',
    title: 'Prompts already contain worked examples',
    message: (a) => `task ${a.task}: ${a.count} prompt(s) already hold in-prompt examples (build.fewshot_ids); the harness adds ${a.shots} more before each. Emit without a few-shot pool unless that is intended`,
  },
  'emit-fewshot-unused': {
    severity: 'warning',
    title: 'Few-shot examples for a task that is not emitted',
    message: (a) => `${a.count} few-shot example(s) belong to task ${a.task}, which has no test questions; ignored`,
  },
  'emit-fewshot-split-excluded': {
    severity: 'info',
    title: 'Few-shot split excluded from evaluation',
    message: (a) => `${a.count} question(s) marked split=fewshot are never evaluated${a.used ? ' and form the few-shot pool' : ' (pass --fewshot-split to use them as harness few-shot examples)'}`,
  },
  'emit-task-empty': {
    severity: 'warning',
    title: 'Task has no test questions',
    message: (a) => `task ${a.task} has no questions left in its test split and is not emitted`,
  },
  'emit-invalid-config': {
    severity: 'error',
    title: 'Generated config fails the TaskConfig schema',
    message: (a) => `internal: ${a.file} does not match the ${a.schema} schema at ${a.at || '/'}: ${a.problem}`,
  },
  'emit-yaml-roundtrip': {
    severity: 'error',
    title: 'YAML does not read back as written',
    message: (a) => `internal: ${a.file} reads back differently under a YAML 1.1 loader; refusing to write it`,
  },
  'emit-harness-version-unsupported': {
    severity: 'error',
    title: 'Harness version not supported',
    message: (a) => `lm-eval ${a.version} is not supported: emitted suites need ${a.minimum} or newer (custom_dataset loader, group files with group:)`,
  },
  'emit-harness-version-untested': {
    severity: 'warning',
    title: 'Harness version not tested',
    message: (a) => `lm-eval ${a.version} is outside the tested range ${a.tested}; the suite may still load`,
  },
  'emit-builtin-names-version': {
    severity: 'info',
    title: 'Built-in name snapshot is from another harness version',
    message: (a) => `name clashes were checked against lm-eval ${a.snapshot}'s built-in tasks, not ${a.version}'s`,
  },
  'emit-target-not-owned': {
    severity: 'error',
    title: 'Refusing to overwrite a file aptpace did not write',
    message: (a) =>
      a.reason === 'modified'
        ? `${a.target} was changed since aptpace wrote it; pass --force to overwrite it`
        : `${a.target} exists and is not in the suite manifest; pass --force to overwrite it`,
  },
  'emit-target-unwritable': {
    severity: 'error',
    title: 'Target cannot be written',
    message: (a) =>
      a.partial
        ? `cannot write the suite to ${a.target}: ${a.reason}; some files were already replaced, and the manifest marks the suite as being written (its consumers refuse it). Rerun aptpace emit to repair it`
        : `cannot write the suite to ${a.target}: ${a.reason}; nothing was written`,
  },
  'emit-target-not-directory': {
    severity: 'error',
    title: 'Target is not a folder',
    message: (a) => `${a.target} exists and is not a folder`,
  },
  'emit-harness-checkout-invalid': {
    severity: 'error',
    title: 'Not a harness checkout',
    message: (a) => `${a.checkout} has no lm_eval/tasks folder; pass the root of an lm-evaluation-harness checkout`,
  },
  'emit-target-not-empty': {
    severity: 'error',
    title: 'Refusing to write into a folder aptpace does not own',
    message: (a) => `${a.target} holds ${a.count} entr${a.count === 1 ? 'y' : 'ies'} and no aptpace suite manifest; choose an empty or new folder, or pass --force to write the suite's files beside them (nothing else is touched)`,
  },
  'emit-suite-folder-foreign': {
    severity: 'error',
    title: 'Suite folder in the harness belongs to someone else',
    message: (a) => `${a.target} exists and was not written by aptpace (a built-in or another suite's folder); choose another --suite. --force does not override this`,
  },
  'emit-target-symlink': {
    severity: 'error',
    title: 'Symbolic link where the suite writes',
    message: (a) =>
      a.reason === 'dangling'
        ? `${a.target} is a symbolic link to nothing; create its target folder or choose another --out`
        : `${a.target} is a symbolic link; aptpace never replaces a link with a file. Remove it or choose another folder`,
  },
  'emit-suite-torn': {
    severity: 'warning',
    title: 'Previous emit was interrupted',
    message: (a) => `${a.target} holds a suite whose last emit stopped half way (its manifest still says writing); its files are repaired now`,
  },
  'emit-foreign-file-kept': {
    severity: 'warning',
    title: 'File not written by aptpace kept in the suite folder',
    message: (a) => `${a.target} is not part of the suite; it was kept${a.yaml ? ' and the harness will also index it' : ''}`,
  },
  'suite-set-torn': {
    severity: 'error',
    title: 'Suite folder is torn or mixed',
    message: (a) =>
      a.reason === 'writing'
        ? `${a.target} was being rewritten when its emit stopped; its files do not belong together. Rerun aptpace emit before using it`
        : `${a.target}: ${a.file} ${a.reason === 'missing' ? 'is missing' : 'differs from the content'} the suite's manifest recorded; the suite is mixed or edited. Rerun aptpace emit`,
  },
} satisfies FindingCatalog;

export type EmitFindingCode = keyof typeof emitFindings;
