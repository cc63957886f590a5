import type { HistoryEntry } from './history.js';

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

/** The metrics and tags of one check, as logged: each target's prediction, interval, threshold and outcome. */
export function trackingPoint(entry: HistoryEntry): TrackingPoint {
  const metrics: Record<string, number> = { [trackingKey('aptpace', 'passed')]: entry.passed ? 1 : 0 };
  const tags: Record<string, string> = { [trackingKey('aptpace', 'verdict')]: entry.passed ? 'PASS' : 'FAIL', [trackingKey('aptpace', 'model')]: entry.model };
  const put = (key: string, value: number | null) => {
    if (value !== null && Number.isFinite(value)) metrics[key] = value;
  };
  for (const t of entry.targets) {
    put(trackingKey('aptpace', t.target, 'predicted'), t.predicted);
    put(trackingKey('aptpace', t.target, 'interval_low'), t.interval?.[0] ?? null);
    put(trackingKey('aptpace', t.target, 'interval_high'), t.interval?.[1] ?? null);
    put(trackingKey('aptpace', t.target, 'min_score'), t.minScore);
    put(trackingKey('aptpace', t.target, 'missing_fraction'), t.proxyInstances > 0 ? t.missingInstances / t.proxyInstances : null);
    if (t.status === 'pass' || t.status === 'fail') metrics[trackingKey('aptpace', t.target, 'passed')] = t.status === 'pass' ? 1 : 0;
    tags[trackingKey('aptpace', t.target, 'status')] = t.status;
  }
  if (entry.step !== null && !(Number.isInteger(entry.step) && entry.step >= 0)) put(trackingKey('aptpace', 'step'), entry.step);
  return { step: entry.step !== null && Number.isInteger(entry.step) && entry.step >= 0 ? entry.step : null, metrics, tags };
}

export function trackingPayload(
  tracker: Tracker,
  entries: readonly HistoryEntry[],
  options: { project: string; run: string; defaultDir: string },
): TrackingPayload {
  const first = entries[0];
  return {
    format: 'aptpace-tracking',
    version: 1,
    tracker,
    project: options.project,
    run: options.run,
    config: { 'aptpace/model_file_sha256': first?.modelFileSha256 ?? null },
    points: entries.map(trackingPoint),
    defaultDir: options.defaultDir,
  };
}
