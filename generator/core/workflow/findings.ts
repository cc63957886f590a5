import type { FindingCatalog } from '../kernel/findings.js';

/** Codes raised while reading a reference-population file and writing run plans. */
export const workflowFindings = {
  'reference-unreadable': {
    severity: 'error',
    title: 'Reference file unreadable',
    message: (a) => `cannot read the reference file: ${a.reason}`,
  },
  'reference-yaml': {
    severity: 'error',
    title: 'Reference file is not valid YAML',
    message: (a) => `not valid YAML: ${a.reason}`,
  },
  'reference-field': {
    severity: 'error',
    title: 'Bad reference-file field',
    message: (a) => `${a.problem}`,
  },
  'reference-unknown-key': {
    severity: 'error',
    title: 'Unknown key in the reference file',
    message: (a) => `unknown key "${a.key}"${a.suggestion ? ` (did you mean "${a.suggestion}"?)` : ''}; allowed here: ${a.allowed}`,
  },
  'reference-duplicate-name': {
    severity: 'error',
    title: 'Duplicate model name',
    message: (a) => `model name "${a.name}" is used twice (names key the score store and must be unique)`,
  },
  'reference-missing-target': {
    severity: 'error',
    title: 'Reference model without a target score',
    message: (a) => `reference model "${a.model}" has no score for target "${a.target}"; every reference needs every target the population is fitted for`,
  },
  'reference-score-range': {
    severity: 'error',
    title: 'Target score out of range',
    message: (a) => `score ${a.value} for target "${a.target}" is not a finite number in [0, ${a.max}] (scale: ${a.scale})`,
  },
  'reference-too-few': {
    severity: 'error',
    title: 'Too few reference models',
    message: (a) => `${a.count} reference model(s) with target scores; PACE needs at least ${a.minimum} to fit and cross-validate anything`,
  },
  'reference-small': {
    severity: 'warning',
    title: 'Small reference population',
    message: (a) =>
      `${a.count} reference models: leave-one-model-out intervals on fewer than ${a.recommended} models are usually too wide to show skill over the mean predictor, so check will treat targets as unproven; add references (public base models whose post-trained versions have published agentic scores)`,
  },
  'reference-budget-large': {
    severity: 'warning',
    title: 'Budget large for the population',
    message: (a) => `--budget ${a.budget} with ${a.count} reference models: at most ${a.components} SVD components can be estimated, so most of the budget buys noise`,
  },
  'plan-suite-unreadable': {
    severity: 'error',
    title: 'Suite folder unreadable',
    message: (a) => `cannot read the suite: ${a.reason}`,
  },
  'plan-shards-too-many': {
    severity: 'error',
    title: 'More shards than documents',
    message: (a) => `${a.shards} shards for ${a.documents} documents: every shard must hold at least one document`,
  },
  'proxy-not-in-suite': {
    severity: 'warning',
    title: 'Proxy instances outside the suite',
    message: (a) => `${a.count} of ${a.total} proxy instances are not documents of this suite (e.g. ${a.examples}); a checkpoint run on proxy-suite/ cannot score them — fit on a store built from this suite's runs`,
  },
  'ls-unrecognised': {
    severity: 'error',
    title: 'Nothing aptpace can list',
    message: (a) => `nothing to list: ${a.reason}`,
  },
  'validate-suite-file': {
    severity: 'error',
    title: 'Suite file not as emitted',
    message: (a) => `${a.problem}`,
  },
  'validate-config': {
    severity: 'error',
    title: 'Invalid config file',
    message: (a) => `${a.problem}`,
  },
  'run-stage-failed': {
    severity: 'error',
    title: 'Pipeline stage failed',
    message: (a) => `stage ${a.stage} exited with ${a.exitCode}; later stages were not run`,
  },
} satisfies FindingCatalog;
