import type { Command } from 'commander';
import { UsageError } from './command.js';
import { listOption } from './options.js';
import { confinedTarget } from '../core/kernel/confine.js';
import { findingFactory, type Finding } from '../core/kernel/findings.js';
import type { Vfs } from '../core/kernel/vfs.js';
import type { ProcessRunner } from '../core/kernel/process.js';
import { trackerScriptPath } from '../core/emit/templates.js';
import { checkFindings } from '../core/report/check-findings.js';
import { TRACKERS, trackingPayload, type TrackedCheckpoint, type Tracker } from '../core/report/tracking.js';

export function trackerOptions(cmd: Command): Command {
  return cmd
    .addOption(listOption('--track <tracker>', `also log the predictions, intervals and verdicts to ${TRACKERS.join(' and/or ')} (configured by their own environment variables)`, { names: true }))
    .option('--track-project <name>', 'W&B project / MLflow experiment', 'aptpace')
    .option('--track-run <name>', 'run to log into (check: the checkpoint name by default, name one run for a whole series and pass --step; report: the series, default `series`)')
    .option('--python <path>', 'Python with the tracker clients installed (default: $APTPACE_PYTHON, else python3)');
}

/**
 * Where unconfigured tracker clients write: `trackers/` inside the output folder, checked before
 * any work so a linked `trackers` folder leading elsewhere is refused (`output-outside-root`).
 */
export function trackerDefaultDir(vfs: Vfs, outRoot: string): Promise<string> {
  return confinedTarget(vfs, outRoot, 'trackers');
}

/** The trackers `--track` names, checked before any work. */
export function parseTrackers(raw: readonly string[] | undefined): Tracker[] {
  const names = [...new Set(raw ?? [])];
  const unknown = names.filter((n) => !(TRACKERS as readonly string[]).includes(n));
  if (unknown.length) throw new UsageError(`--track takes ${TRACKERS.join(', ')} (got ${unknown.join(', ')})`);
  return names as Tracker[];
}

/** Exit statuses of templates/trackers/aptpace_track.py. */
const SCRIPT_STATUS: Record<number, string> = { 3: 'payload refused', 4: 'client not installed', 5: 'client failed' };

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return (lines[lines.length - 1] ?? '').slice(0, 500);
}

/** What `--track …` asked for, read and checked before any work (unknown tracker, linked `trackers/`). */
export interface TrackerSettings {
  trackers: readonly Tracker[];
  project: string;
  run: string;
  python?: string;
  defaultDir: string;
}

export async function trackerSettings(vfs: Vfs, opts: Record<string, unknown>, outRoot: string, defaultRun: string): Promise<TrackerSettings> {
  const trackers = parseTrackers(opts.track as string[] | undefined);
  return {
    trackers,
    project: opts.trackProject as string,
    run: (opts.trackRun as string | undefined) ?? defaultRun,
    ...(opts.python ? { python: opts.python as string } : {}),
    defaultDir: trackers.length ? await trackerDefaultDir(vfs, outRoot) : '',
  };
}

/**
 * Hands the checkpoints to each named tracker's own client. A tracker that fails is a warning:
 * the verdict and the report do not depend on a dashboard being reachable.
 */
export async function logToTrackers(
  io: { vfs: Vfs; runProcess: ProcessRunner },
  checkpoints: readonly TrackedCheckpoint[],
  options: TrackerSettings & { modelFileSha256: string },
): Promise<Finding[]> {
  const make = findingFactory(checkFindings);
  const findings: Finding[] = [];
  if (options.trackers.length === 0) return findings;
  const python = options.python ?? process.env.APTPACE_PYTHON ?? 'python3';
  const script = await trackerScriptPath(io.vfs);
  const { defaultDir } = options;
  for (const tracker of new Set(options.trackers)) {
    const payload = trackingPayload(tracker, checkpoints, { project: options.project, run: options.run, defaultDir, modelFileSha256: options.modelFileSha256 });
    const outcome = await io.runProcess([python, script], { input: JSON.stringify(payload) });
    if (outcome.code === 0) {
      const metrics = payload.points.reduce((n, p) => n + Object.keys(p.metrics).length, 0);
      const models = checkpoints.length === 1 ? checkpoints[0]!.model : `${checkpoints.length} checkpoints`;
      findings.push(make('tracker-logged', {}, { tracker, metrics, model: models, project: options.project, run: options.run }));
    } else {
      const status = outcome.code === null ? (outcome.error ?? 'not started') : (SCRIPT_STATUS[outcome.code] ?? `exit ${outcome.code}`);
      const detail = lastLine(outcome.stderr);
      findings.push(make('tracker-failed', {}, { tracker, reason: `${python}: ${status}${detail ? `: ${detail}` : ''}` }));
    }
  }
  return findings;
}
