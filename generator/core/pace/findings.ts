import type { FindingCatalog } from '../kernel/findings.js';

/** Codes raised while preparing data, fitting, evaluating and predicting with PACE. */
export const paceFindings = {
  'pace-model-no-scores': {
    severity: 'warning',
    title: 'Model without any source score',
    message: (a) => `model ${a.model} has no observed source instance; it is left out of the pool`,
  },
  'pace-model-low-coverage': {
    severity: 'warning',
    title: 'Model with low source coverage',
    message: (a) =>
      `model ${a.model} is observed on ${a.observed} of ${a.instances} source instances (${(100 * a.coverage).toFixed(1)}% < ${(100 * a.minCoverage).toFixed(0)}%); it is left out of the pool rather than shrinking every model to its instances`,
  },
  'pace-model-dropped-incomplete': {
    severity: 'warning',
    title: 'Model left out so that instances are complete',
    message: (a) =>
      `model ${a.model} lacks ${a.lacked} of ${a.instances} source instances; fewer than ${(100 * a.minShare).toFixed(0)}% of the instances were observed for every pool model, so it left the pool (${a.complete} complete now); run the benchmarks it lacks to keep it, or pass --min-complete-share 0`,
  },
  'pace-source-score-invalid': {
    severity: 'error',
    title: 'Invalid source score',
    message: (a) => `model ${a.model}, instance ${a.instance} (${a.task}): score ${a.value} is not a number in [0, 1]; the cell is treated as unobserved`,
  },
  'pace-source-score-invalid-more': {
    severity: 'error',
    title: 'More invalid source scores',
    message: (a) => `${a.count} more source scores are not numbers in [0, 1] (all treated as unobserved)`,
  },
  'pace-target-score-invalid': {
    severity: 'error',
    title: 'Target score out of range',
    message: (a) => `target ${a.target}: model ${a.model} has score ${a.value}, outside the ${a.scale === 'percent' ? '0–100' : '0–1'} range of a ${a.scale} target; the model is not used for this target`,
  },
  'pace-task-mostly-zero': {
    severity: 'warning',
    title: 'Degenerate source benchmark',
    message: (a) =>
      `source benchmark ${a.task}: ${a.zero} of ${a.models} pool models score 0 on every instance they have (${a.names}); this looks like a broken block (e.g. the first of two duplicated id blocks kept by --duplicates first) — check the files, or leave it out with --exclude-benchmark ${a.task}`,
  },
  'pace-instances-incomplete': {
    severity: 'info',
    title: 'Instances not observed for every pool model',
    message: (a) =>
      `${a.count} source instances are missing for at least one pool model and are not selectable (never zero-filled); by task: ${a.byTask}`,
  },
  'pace-instances-constant': {
    severity: 'info',
    title: 'Constant instances',
    message: (a) => `${a.count} source instances have the same score for every pool model and carry no signal; they are not selectable`,
  },
  'pace-no-usable-instances': {
    severity: 'error',
    title: 'No usable source instance',
    message: (a) => `no source instance is observed for all ${a.models} pool models with varying scores; nothing can be selected`,
  },
  'pace-target-model-not-in-sources': {
    severity: 'warning',
    title: 'Target model missing from the sources',
    message: (a) => `target ${a.target}: model ${a.model} has a target score but no usable source scores; it is not used`,
  },
  'pace-source-model-not-in-pool': {
    severity: 'info',
    title: 'Source-only model',
    message: (a) => `model ${a.model} has source scores but no target score; it is not in the pool (pass --pool all to keep it for the global SVD)`,
  },
  'pace-source-model-without-target': {
    severity: 'info',
    title: 'Source model without a target score',
    message: (a) => `target ${a.target}: source model ${a.model} has no score for this target; it is not used for this target`,
  },
  'pace-target-too-few-models': {
    severity: 'error',
    title: 'Too few models for a target',
    message: (a) =>
      `target ${a.target} has ${a.models} model(s) with both source and target scores; at least ${a.minimum} are needed (leave-one-out leaves ${a.minimum - 1} to fit on); the target is skipped`,
  },
  'pace-target-no-instances': {
    severity: 'info',
    title: 'No per-instance target results',
    message: (a) => `target ${a.target} has no per-instance results; the bootstrap over target instances is off (B=0) and no prediction intervals are given`,
  },
  'pace-target-constant': {
    severity: 'error',
    title: 'Constant target',
    message: (a) => `target ${a.target} has the same score for every model; there is nothing to rank or regress`,
  },
  'pace-budget-short': {
    severity: 'warning',
    title: 'Budget not filled',
    message: (a) => `target ${a.target}: only ${a.selected} of the requested ${a.budget} instances could be selected (${a.eligible} eligible)`,
  },
  'pace-unknown-target': {
    severity: 'error',
    title: 'Unknown target',
    message: (a) => `target ${a.target} is not in the targets read (${a.available})`,
  },
  'pace-proxy-missing-instances': {
    severity: 'warning',
    title: 'Checkpoint misses proxy instances',
    message: (a) =>
      `model ${a.model} misses ${a.missing} of ${a.total} proxy instances for target ${a.target}; the embedding is a least-squares fit on the ${a.total - a.missing} observed ones (not zero-filled), and the prediction is less certain`,
  },
  'pace-proxy-too-few-instances': {
    severity: 'error',
    title: 'Too few proxy instances observed',
    message: (a) =>
      `model ${a.model} has ${a.observed} of ${a.total} proxy instances for target ${a.target}; at least ${a.needed} are needed to place it; no prediction`,
  },
  'pace-model-not-in-logs': {
    severity: 'error',
    title: 'Model not found',
    message: (a) => `model ${a.model} is not in the scores read (${a.available})`,
  },
  'pace-threshold-failed': {
    severity: 'error',
    title: 'Score below threshold',
    message: (a) => `target ${a.target}: predicted ${a.predicted} is below the required ${a.minimum}`,
  },
  'pace-threshold-unknown-target': {
    severity: 'error',
    title: 'Threshold for an unknown target',
    message: (a) => `--min-score names target ${a.target}, which the model file does not predict (${a.available})`,
  },
  'pace-model-file-invalid': {
    severity: 'error',
    title: 'Invalid model file',
    message: (a) => `model file is not a usable aptpace PACE model: ${a.reason}`,
  },
  'pace-samples-non-numeric': {
    severity: 'warning',
    title: 'Proxy instances without harness doc ids',
    message: (a) =>
      `${a.count} proxy instances in ${a.tasks} have non-numeric doc ids and cannot go into an lm_eval --samples file, so no samples.json is written (one without them would run a partial proxy set); pass --suite to write the proxy-only suite, which runs exactly the proxies by id`,
  },
  'pace-target-no-skill': {
    severity: 'warning',
    title: 'No demonstrated skill',
    message: (a) =>
      `target ${a.target}: cross-validated MAE ${Number(a.mae).toFixed(2)} vs ${Number(a.meanMae).toFixed(2)} for the mean predictor; the fitted model ${a.words}, so it has no demonstrated skill on this target and \`check\` will not pass it without --allow-unproven`,
  },
  'pace-simpler-predictor-better': {
    severity: 'warning',
    title: 'A simpler predictor does better',
    message: (a) =>
      `target ${a.target}: ${a.baseline} (${a.title}) errs less than the shipped predictor on the same cross-validation folds: MAE ${Number(a.baselineMae).toFixed(2)} vs ${Number(a.mae).toFixed(2)}, sign-flip p ${a.p}; \`aptpace evaluate\` compares every predictor`,
  },
  'pace-proxy-document-changed': {
    severity: 'error',
    title: 'Proxy document differs from the fitted one',
    message: (a) =>
      `${a.key}: the checkpoint's log holds another document under this key (doc_hash ${String(a.logged).slice(0, 12)}… vs ${String(a.fitted).slice(0, 12)}… when fitted): a changed gold or prompt, or another suite; its score is not used (counted missing). Run the proxy suite written with this model file, or refit on the current suite`,
  },
  'pace-prediction-below-range': {
    severity: 'warning',
    title: 'Checkpoint below every training model',
    message: (a) =>
      `${a.model} on ${a.target}: proxy accuracy ${(100 * Number(a.accuracy)).toFixed(1)}% is below the weakest training model's ${(100 * Number(a.lowest)).toFixed(1)}%${Number(a.accuracy) === 0 ? ' (no proxy item right)' : ''}; the fit has no model there, so the prediction is an extrapolation and \`check\` will not pass it without --allow-unproven`,
  },
  'pace-prediction-unproven': {
    severity: 'warning',
    title: 'Prediction without demonstrated skill',
    message: (a) =>
      `target ${a.target}: the fitted model did not beat the mean predictor in cross-validation (MAE ${Number(a.mae).toFixed(2)} vs ${Number(a.meanMae).toFixed(2)}: it ${a.words}); the prediction for ${a.model} is not evidence of anything`,
  },
  'pace-prediction-out-of-range': {
    severity: 'warning',
    title: 'Checkpoint outside the training range',
    message: (a) =>
      `target ${a.target}: ${a.model} lies outside the range the training models span on ${a.count} embedding coordinate(s) (${a.detail}); the prediction is an extrapolation`,
  },
  'pace-prediction-proxy-inconsistent': {
    severity: 'warning',
    title: 'Proxy score out of line with the rest',
    message: (a) =>
      `target ${a.target}: ${a.model} gets ${(100 * a.proxyMean).toFixed(1)}% of the proxy items right, where its ${a.observed} other source items put a training model at ${(100 * a.expected).toFixed(1)}% (standard error ${(100 * a.standardError).toFixed(1)} points), above the line further than any training model lies; the proxy items may have been seen in training, and the prediction follows them`,
  },
  'pace-prediction-consistency-unchecked': {
    severity: 'warning',
    title: 'Proxy consistency not checked',
    message: (a) =>
      `target ${a.target}: the logs of ${a.model} hold ${a.observed} of the ${a.total} yardstick items (at least half are needed; a run of the proxy suite alone holds none), so whether its proxy score is in line with its other source items was not checked: a checkpoint that has seen the public proxy items in training would get the prediction of one that answers them on merit. The logs of a run of the full suite hold the yardstick and make the check`,
  },
  'pace-prediction-not-finite': {
    severity: 'error',
    title: 'Prediction is not a finite number',
    message: (a) => `target ${a.target}: the prediction for ${a.model} is ${a.value} (field ${a.field}); no prediction is reported`,
  },
  'pace-nested-grid': {
    severity: 'info',
    title: 'Nested search grid',
    message: (a) => `nested search: ${a.configs} configurations per inner fold`,
  },
} satisfies FindingCatalog;

export type PaceFindingCode = keyof typeof paceFindings;
