/**
 * The machine-readable verdict of `aptpace check` for one checkpoint: PACE's forecasts, the
 * thresholds applied to them and what was missing. Pure: forecasts and scores in, result out.
 */
import { findingFactory, type Finding } from '../kernel/findings.js';
import { exitCodeFor } from '../kernel/exit-codes.js';
import { paceFindings } from '../pace/findings.js';
import type { PaceModelFile, SerializedTarget } from '../pace/model-file/model-file.js';
import { skillOf, type TargetForecast } from '../pace/predict.js';
import { skillVerdictWords } from '../pace/evaluation/uncertainty.js';
import { checkFindings } from './check-findings.js';
import type { CheckpointSource } from '../pace/model-file/checkpoint-inputs.js';

export const CHECK_RESULT_FORMAT = 'aptpace-check-result';
export const CHECK_RESULT_VERSION = 1;

const pace = findingFactory(paceFindings);
const check = findingFactory(checkFindings);

export type CheckOutcome = 'pass' | 'fail';
/** pass/fail: every check applied passed / one failed; unchecked: predicted, no check applied; no-prediction: PACE could not place the checkpoint for this target. */
/** cannot-judge: predicted, but the model has no demonstrated skill or the checkpoint lies outside the training range (not a pass without --allow-unproven). */
export type TargetStatus = 'pass' | 'fail' | 'unchecked' | 'no-prediction' | 'cannot-judge';

export interface CheckTargetResult {
  target: string;
  scale: SerializedTarget['scale'];
  predicted: number | null;
  /** 95% prediction interval on the target's scale (see `intervals`). */
  interval: [number, number] | null;
  intervals: TargetForecast['intervals'];
  /** Cross-validated quality of the fitted model for this target, shown beside the prediction. */
  skill: TargetForecast['skill'] | null;
  /** Why the prediction cannot be vouched for; non-empty makes the status cannot-judge unless --allow-unproven. */
  concerns: TargetForecast['concerns'];
  outOfRange: TargetForecast['outOfRange'];
  /** The proxy score against the checkpoint's other source items; null when not read (predict.ts). */
  consistency: TargetForecast['consistency'];
  /** The prediction fell back to the training mean (PACE's range guard). */
  guarded: boolean;
  minScore: number | null;
  proxyInstances: number;
  missingInstances: number;
  missingFraction: number;
  /** Keys of the proxy instances the checkpoint has no score for, sorted. */
  missing: string[];
  checks: { minScore: CheckOutcome | null; maxMissing: CheckOutcome | null };
  status: TargetStatus;
  /** 1 + Σ_j P(training model j beats the checkpoint): its expected place among the training models plus itself. */
  expectedRank: number | null;
  winProbabilities: Array<{ model: string; score: number; probability: number }>;
}

export interface CheckResult {
  format: typeof CHECK_RESULT_FORMAT;
  version: typeof CHECK_RESULT_VERSION;
  model: string;
  /** Training step (or any ordering number) given with --step; orders the trend plot. */
  step: number | null;
  passed: boolean;
  exitCode: number;
  maxMissing: number | null;
  modelFile: {
    path: string;
    sha256: string;
    matrixSha256: string;
    targetsSha256: string;
    versions: Record<string, string>;
    proxyInstances: number;
  };
  inputs: { kind: CheckpointSource['kind']; paths: string[]; mapping: string | null };
  /** The --history file this check appended to, if any (so "What next" does not suggest it again). */
  history: string | null;
  /** Whether the checkpoint was found in the inputs at all. */
  found: boolean;
  targets: CheckTargetResult[];
  /** --min-score targets the model file does not predict. */
  unknownThresholds: string[];
  findings: Finding[];
}

export interface CheckEvaluation {
  targets: CheckTargetResult[];
  unknownThresholds: string[];
  findings: Finding[];
  thresholdFailed: boolean;
}

/** Proxy-instance keys of one target (local and global parts together), sorted. */
export function targetProxyKeys(t: SerializedTarget): string[] {
  return [...new Set([...(t.local?.instances ?? []), ...(t.global?.instances ?? [])])].sort();
}

/** Applies --min-score and --max-missing to PACE's forecasts; `scores` is null when the checkpoint was not found. */
export function evaluateCheck(
  model: PaceModelFile,
  checkpoint: string,
  scores: Map<string, number> | null,
  forecasts: TargetForecast[],
  thresholds: Record<string, number>,
  maxMissing: number | null,
  /** allowUnproven: judge targets with concerns (warning only); judgeConcerns false: leave them to the caller (predict flags them itself). */
  options: { allowUnproven?: boolean; judgeConcerns?: boolean } = {},
): CheckEvaluation {
  const findings: Finding[] = [];
  let thresholdFailed = false;
  const known = new Set(model.targets.map((t) => t.target));
  const unknownThresholds = Object.keys(thresholds)
    .filter((t) => !known.has(t))
    .sort();
  for (const target of unknownThresholds) {
    findings.push(pace('pace-threshold-unknown-target', {}, { target, available: model.targets.map((t) => t.target).join(', ') }));
    thresholdFailed = true;
  }
  const targets = model.targets.map((t): CheckTargetResult => {
    const forecast = forecasts.find((f) => f.target === t.target) ?? null;
    const keys = targetProxyKeys(t);
    const missing = keys.filter((k) => !scores?.has(k));
    const missingFraction = keys.length ? missing.length / keys.length : 0;
    const minScore = thresholds[t.target] ?? null;
    let minScoreCheck: CheckOutcome | null = null;
    if (minScore !== null) {
      minScoreCheck = forecast && forecast.predicted >= minScore ? 'pass' : 'fail';
      // A checkpoint that is absent altogether is reported once (pace-model-not-in-logs), not per threshold.
      if (minScoreCheck === 'fail' && scores) findings.push(pace('pace-threshold-failed', {}, { target: t.target, predicted: forecast ? +forecast.predicted.toFixed(3) : 'none', minimum: minScore }));
    }
    let missingCheck: CheckOutcome | null = null;
    if (maxMissing !== null && scores) {
      missingCheck = missingFraction <= maxMissing ? 'pass' : 'fail';
      if (missingCheck === 'fail') findings.push(check('check-missing-too-high', {}, { model: checkpoint, target: t.target, missing: missing.length, total: keys.length, fraction: missingFraction, maxMissing }));
    }
    if (minScoreCheck === 'fail' || missingCheck === 'fail') thresholdFailed = true;
    const concerns = forecast?.concerns ?? [];
    const judge = options.judgeConcerns !== false;
    const blocked = judge && concerns.length > 0 && !options.allowUnproven;
    if (judge && concerns.length)
      findings.push(check(blocked ? 'check-cannot-judge' : 'check-cannot-judge-allowed', {}, { model: checkpoint, target: t.target, reasons: concerns.map((c) => concernWords(c, forecast!)).join('; ') }));
    let status: TargetStatus = !forecast ? 'no-prediction' : minScoreCheck === 'fail' || missingCheck === 'fail' ? 'fail' : minScoreCheck || missingCheck ? 'pass' : 'unchecked';
    if (blocked && status !== 'fail') status = 'cannot-judge';
    const wins = forecast ? [...forecast.winProbabilities] : [];
    return {
      target: t.target,
      scale: t.scale,
      predicted: forecast ? forecast.predicted : null,
      interval: forecast ? forecast.interval : null,
      intervals: forecast ? forecast.intervals : [],
      skill: forecast ? forecast.skill : t.cv ? skillOf(t) : null,
      concerns,
      outOfRange: forecast ? forecast.outOfRange : [],
      consistency: forecast ? forecast.consistency : null,
      guarded: forecast ? forecast.guarded : false,
      minScore,
      proxyInstances: keys.length,
      missingInstances: missing.length,
      missingFraction,
      missing,
      checks: { minScore: minScoreCheck, maxMissing: missingCheck },
      status,
      expectedRank: forecast && wins.length ? 1 + wins.reduce((s, w) => s + (1 - w.probability), 0) : null,
      winProbabilities: wins,
    };
  });
  return { targets, unknownThresholds, findings, thresholdFailed };
}

/** One reason a prediction cannot be vouched for, in words (shared by the finding and the report). */
export function concernWords(c: TargetForecast['concerns'][number], f: Pick<TargetForecast, 'skill' | 'outOfRange' | 'consistency'>): string {
  if (c === 'no-demonstrated-skill') {
    const s = f.skill;
    return `no demonstrated skill: in ${cvWords(s)} the fitted model's MAE was ${s.mae.toFixed(2)} vs ${s.meanMae.toFixed(2)} for the mean predictor; it ${skillVerdictWords(s)}`;
  }
  if (c === 'below-training-range') {
    const e = f.outOfRange.find((x) => x.kind === 'below');
    return `below the training range: proxy accuracy ${e ? (100 * e.value).toFixed(1) : '?'}% is under the weakest training model's ${e ? (100 * e.min).toFixed(1) : '?'}%, so the prediction extrapolates below every training model`;
  }
  if (c === 'proxy-inconsistent') {
    const r = f.consistency;
    return `proxy score out of line: ${r?.proxyMean !== undefined ? (100 * r.proxyMean).toFixed(1) : '?'}% of the proxy items right where the checkpoint's other source items put a training model at ${r?.expected !== undefined ? (100 * r.expected).toFixed(1) : '?'}%, so the prediction may follow items it has seen`;
  }
  const n = f.outOfRange.filter((x) => x.kind !== 'below').length;
  return `outside the training range (${n} excursion(s) in the embedding the predictor uses): the prediction extrapolates beyond every training model`;
}

/** "leave-one-out over 13 models" or "10-fold cross-validation over 500 models". */
export function cvWords(s: { folds: number; models: number }): string {
  return s.folds === s.models ? `leave-one-out over ${s.models} models` : `${s.folds}-fold cross-validation over ${s.models} models`;
}


export interface CheckResultInput {
  model: PaceModelFile;
  modelFile: { path: string; sha256: string };
  checkpoint: string;
  step: number | null;
  source: CheckpointSource;
  mapping: string | null;
  maxMissing: number | null;
  history?: string | null;
  found: boolean;
  evaluation: CheckEvaluation;
  /** Every finding of the run (inputs, prediction, checks, history), in the order raised. */
  findings: Finding[];
}

export function buildCheckResult(input: CheckResultInput): CheckResult {
  const exitCode = exitCodeFor({ findings: input.findings, thresholdFailed: input.evaluation.thresholdFailed });
  const m = input.model;
  return {
    format: CHECK_RESULT_FORMAT,
    version: CHECK_RESULT_VERSION,
    model: input.checkpoint,
    step: input.step,
    passed: exitCode === 0,
    exitCode,
    maxMissing: input.maxMissing,
    modelFile: {
      path: input.modelFile.path,
      sha256: input.modelFile.sha256,
      matrixSha256: m.data.matrixSha256,
      targetsSha256: m.data.targetsSha256,
      versions: m.versions,
      proxyInstances: m.proxy.length,
    },
    inputs: { kind: input.source.kind, paths: [...input.source.paths], mapping: input.mapping },
    history: input.history ?? null,
    found: input.found,
    targets: input.evaluation.targets,
    unknownThresholds: input.evaluation.unknownThresholds,
    findings: input.findings,
  };
}
