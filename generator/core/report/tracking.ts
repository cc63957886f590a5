import type { HistoryEntry } from './history.js';
import type { SeriesResult } from './series.js';

/** Experiment trackers `check --track` logs to, through their own Python clients. */
export const TRACKERS = ['wandb', 'mlflow'] as const;
export type Tracker = (typeof TRACKERS)[number];

/** One logged point: a checkpoint's metrics at its training step. */
export interface TrackingPoint {
  /** Training step when it is a non-negative integer (both trackers order by integer steps). */
  step: number | null;
  metrics: Record<string, number>;
  /** Text values (verdicts, statuses): W&B summary keys, MLflow tags. */
  tags: Record<string, string>;
}

/** What templates/trackers/aptpace_track.py reads on stdin. */
export interface TrackingPayload {
  format: 'aptpace-tracking';
  version: 1;
  tracker: Tracker;
  /** W&B project / MLflow experiment. */
  project: string;
  /** W&B run name (and a run id derived from it, so later checks resume the run) / MLflow run name. */
  run: string;
  config: Record<string, string | number | null>;
  points: TrackingPoint[];
  /** Where an unconfigured tracker writes: inside the check's output folder, never the working directory. */
  defaultDir: string;
}

/**
 * MLflow accepts letters, digits and `_ - . / : space` in metric names; W&B accepts more. One
 * spelling for both, so a dashboard query works against either.
 */
export function trackingKey(...parts: string[]): string {
  return parts.map((p) => p.replace(/[^A-Za-z0-9_\-. :]/g, '_')).join('/');
}

/** One checkpoint as the trackers see it, from a check (history entry) or a series report. */
export interface TrackedCheckpoint {
  model: string;
  /** Orders the points: training step, tokens, or the series' order. */
  step: number | null;
  /** The check's verdict; null in a series report, which applies no thresholds. */
  passed: boolean | null;
  targets: Array<{
    target: string;
    predicted: number | null;
    interval: [number, number] | null;
    minScore: number | null;
    missingFraction: number | null;
    /** check: pass, fail, unchecked, cannot-judge, no-prediction; series: vouched or flagged. */
    status: string;
  }>;
}

export function checkedCheckpoint(entry: HistoryEntry): TrackedCheckpoint {
  return {
    model: entry.model,
    step: entry.step,
    passed: entry.passed,
    targets: entry.targets.map((t) => ({
      target: t.target,
      predicted: t.predicted,
      interval: t.interval,
      minScore: t.minScore,
      missingFraction: t.proxyInstances > 0 ? t.missingInstances / t.proxyInstances : null,
      status: t.status,
    })),
  };
}

/** The checkpoints of `aptpace report`, each at its step, tokens, or place in the series. */
export function seriesCheckpoints(series: Pick<SeriesResult, 'axis' | 'checkpoints'>): TrackedCheckpoint[] {
  return series.checkpoints.map((c, index) => ({
    model: c.model,
    step: series.axis === 'step' ? c.step : series.axis === 'tokens' ? c.tokens : index,
    passed: null,
    targets: c.targets.map((t) => ({ target: t.target, predicted: t.predicted, interval: t.interval, minScore: null, missingFraction: null, status: t.flags.length ? 'flagged' : 'vouched' })),
  }));
}

/** The metrics and tags of one checkpoint, as logged: each target's prediction, interval, threshold and outcome. */
export function trackingPoint(checkpoint: TrackedCheckpoint): TrackingPoint {
  const metrics: Record<string, number> = {};
  const tags: Record<string, string> = { [trackingKey('aptpace', 'model')]: checkpoint.model };
  const put = (key: string, value: number | null) => {
    if (value !== null && Number.isFinite(value)) metrics[key] = value;
  };
  if (checkpoint.passed !== null) {
    metrics[trackingKey('aptpace', 'passed')] = checkpoint.passed ? 1 : 0;
    tags[trackingKey('aptpace', 'verdict')] = checkpoint.passed ? 'PASS' : 'FAIL';
  }
  for (const t of checkpoint.targets) {
    put(trackingKey('aptpace', t.target, 'predicted'), t.predicted);
    put(trackingKey('aptpace', t.target, 'interval_low'), t.interval?.[0] ?? null);
    put(trackingKey('aptpace', t.target, 'interval_high'), t.interval?.[1] ?? null);
    put(trackingKey('aptpace', t.target, 'min_score'), t.minScore);
    put(trackingKey('aptpace', t.target, 'missing_fraction'), t.missingFraction);
    if (t.status === 'pass' || t.status === 'fail') metrics[trackingKey('aptpace', t.target, 'passed')] = t.status === 'pass' ? 1 : 0;
    tags[trackingKey('aptpace', t.target, 'status')] = t.status;
  }
  const integral = checkpoint.step !== null && Number.isSafeInteger(checkpoint.step) && checkpoint.step >= 0;
  if (checkpoint.step !== null && !integral) put(trackingKey('aptpace', 'step'), checkpoint.step);
  return { step: integral ? checkpoint.step : null, metrics, tags };
}

export function trackingPayload(
  tracker: Tracker,
  checkpoints: readonly TrackedCheckpoint[],
  options: { project: string; run: string; defaultDir: string; modelFileSha256: string },
): TrackingPayload {
  return {
    format: 'aptpace-tracking',
    version: 1,
    tracker,
    project: options.project,
    run: options.run,
    config: { 'aptpace/model_file_sha256': options.modelFileSha256 },
    points: checkpoints.map(trackingPoint),
    defaultDir: options.defaultDir,
  };
}
