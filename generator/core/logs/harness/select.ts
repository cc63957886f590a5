import * as path from 'node:path';
import { countSkip, type Tally } from '../../kernel/findings.js';
import { compareStrings } from '../builder.js';
import type { FindingSink } from '../sink.js';
import type { RunFiles } from './discover.js';
import type { RunInfo, TaskResult } from './results.js';

export interface LoadedRun {
  files: RunFiles;
  info: RunInfo;
  rawModel: string;
  model: string;
}

/** One samples file chosen for the matrix. `task` is the harness task; `base` the task it is a shard of (or itself). */
export interface Winner {
  run: LoadedRun;
  task: string;
  base: string;
  file: string;
  /** 1-based shard number and shard count when `task` is `<base>__shard<i>of<N>`. */
  shard?: { index: number; of: number };
}

export interface SupersededRun {
  model: string;
  task: string;
  kept: { ts: string; file: string };
  dropped: { ts: string; file: string };
}

/**
 * Shard identity of a sharded suite: task `<base>__shard<i>of<N>` (i in 1..N) holds the
 * i-th of N disjoint parts of `<base>`'s documents. `emit --shards N` writes these names.
 */
export const SHARD_TASK = /^(.+)__shard([1-9]\d*)of([1-9]\d*)$/;

export function shardOf(task: string): { base: string; shard?: { index: number; of: number } } {
  const m = SHARD_TASK.exec(task);
  if (!m) return { base: task };
  const index = Number(m[2]);
  const of = Number(m[3]);
  return index <= of ? { base: m[1]!, shard: { index, of } } : { base: task };
}

/** A run that evaluated fewer docs than the task has (`--limit`, `--samples`). Unknown counts are complete. */
export function isPartial(tr: TaskResult | undefined): boolean {
  const n = tr?.nSamples;
  return n?.original !== undefined && n.effective !== undefined && n.effective < n.original;
}

/** Same-timestamp runs whose results agree on what they computed are copies, not conflicts. */
function sameContent(a: Winner, b: Winner): boolean {
  const ta = a.run.info.leafTasks.get(a.task)!;
  const tb = b.run.info.leafTasks.get(b.task)!;
  return ta.taskHash !== undefined && ta.taskHash === tb.taskHash && JSON.stringify(ta.aggregates) === JSON.stringify(tb.aggregates);
}

function matchesPin(run: LoadedRun, pin: string): boolean {
  return run.files.ts === pin || path.resolve(run.files.resultsFile) === path.resolve(pin) || path.resolve(run.files.dir) === path.resolve(pin);
}

/**
 * Chooses the samples files per (model, task):
 * - a pinned run (`--run MODEL=TIMESTAMP|RESULTS-FILE|FOLDER`) wins;
 * - otherwise the newest complete run; partial runs (`--limit`, `--samples`) only when the
 *   model has no complete run of the task, and then every partial run is kept as a shard
 *   (ingest merges them and checks coverage);
 * - two runs with one timestamp and different content are a `run-conflict` error and
 *   neither is used unless the user pins one;
 * - `<task>__shard<i>of<N>` tasks are shards of `<task>` and all kept.
 * `--predict_only` runs (metric `bypass`) are skipped before any of this, so they never
 * supersede or drag down a scored run.
 */
export function selectRuns(
  loaded: LoadedRun[],
  pins: Record<string, string>,
  sink: FindingSink,
  tally: Tally,
): { winners: Winner[]; superseded: SupersededRun[] } {
  const pinFor = (run: LoadedRun) => pins[run.model] ?? pins[run.rawModel] ?? (run.info.modelNameSanitized ? pins[run.info.modelNameSanitized] : undefined);
  for (const [pinModel, pin] of Object.entries(pins).sort()) {
    const runs = loaded.filter((r) => r.model === pinModel || r.rawModel === pinModel || r.info.modelNameSanitized === pinModel);
    const hits = runs.filter((r) => matchesPin(r, pin));
    if (hits.length === 0) sink.add('run-pin-missing', {}, { model: pinModel, ts: pin, available: [...new Set(runs.map((r) => r.files.ts))].sort().join(', ') });
    else if (new Set(hits.map((r) => r.files.resultsFile)).size > 1) {
      sink.add('run-pin-ambiguous', {}, { model: pinModel, ts: pin, runs: hits.map((r) => r.files.resultsFile).sort().join(', ') });
    }
  }

  const candidates = new Map<string, Winner[]>();
  for (const run of loaded) {
    const predictOnly: string[] = [];
    for (const [task, file] of run.files.samples) {
      const tr = run.info.leafTasks.get(task);
      if (!tr) continue;
      if (tr.predictOnly) {
        predictOnly.push(task);
        countSkip(tally, 'predict-only-samples-file');
        continue;
      }
      const { base, shard } = shardOf(task);
      const key = `${run.model}\u0000${base}`;
      if (!candidates.has(key)) candidates.set(key, []);
      candidates.get(key)!.push({ run, task, base, file, ...(shard ? { shard } : {}) });
    }
    if (predictOnly.length) sink.add('run-predict-only', { file: run.files.resultsFile }, { model: run.model, ts: run.files.ts, tasks: predictOnly.sort().join(', ') });
  }

  const winners: Winner[] = [];
  const superseded: SupersededRun[] = [];
  const supersededByRun = new Map<string, { run: LoadedRun; by: Set<string>; tasks: string[] }>();
  const drop = (other: Winner, kept: Winner) => {
    superseded.push({ model: kept.run.model, task: other.task, kept: { ts: kept.run.files.ts, file: kept.file }, dropped: { ts: other.run.files.ts, file: other.file } });
    const entry = supersededByRun.get(other.run.files.resultsFile) ?? { run: other.run, by: new Set<string>(), tasks: [] };
    entry.by.add(kept.run.files.ts || '(none)');
    entry.tasks.push(other.task);
    supersededByRun.set(other.run.files.resultsFile, entry);
    countSkip(tally, 'superseded-samples-file');
  };

  for (const key of [...candidates.keys()].sort()) {
    const all = candidates.get(key)!;
    // Shards of a sharded suite: one slot per harness task; the rules below apply per slot.
    const slots = new Map<string, Winner[]>();
    for (const w of all) {
      if (!slots.has(w.task)) slots.set(w.task, []);
      slots.get(w.task)!.push(w);
    }
    const pin = pinFor(all[0]!.run);
    const kept: Winner[] = [];
    for (const slotTask of [...slots.keys()].sort()) {
      const list = slots.get(slotTask)!.sort((a, b) => compareStrings(b.run.files.ts, a.run.files.ts) || compareStrings(a.file, b.file));
      const pinned = pin !== undefined ? list.filter((w) => matchesPin(w.run, pin)) : [];
      let chosen: Winner[];
      const handled = new Set<Winner>();
      if (pinned.length === 1) chosen = pinned;
      else {
        const complete = list.filter((w) => !isPartial(w.run.info.leafTasks.get(w.task)));
        chosen = complete.length ? [complete[0]!] : list.filter((w, i) => list.findIndex((o) => o.run.files.ts === w.run.files.ts) === i);
        // Same timestamp, same (model, task): a copy is harmless, different content is not.
        const clashes = new Set<Winner>();
        for (const c of chosen) {
          for (const other of list) {
            if (other === c || other.run.files.ts !== c.run.files.ts) continue;
            handled.add(other);
            if (sameContent(c, other)) {
              sink.add('run-duplicate', { file: other.file }, { model: c.run.model, ts: c.run.files.ts, task: c.task, kept: c.file });
              countSkip(tally, 'duplicate-samples-file');
            } else {
              sink.add('run-conflict', { file: other.file }, { model: c.run.model, ts: c.run.files.ts, task: c.task, other: c.file });
              if (!clashes.has(other)) countSkip(tally, 'conflicting-samples-file');
              if (!clashes.has(c)) countSkip(tally, 'conflicting-samples-file');
              clashes.add(c);
              clashes.add(other);
            }
          }
        }
        chosen = chosen.filter((c) => !clashes.has(c));
        for (const c of clashes) handled.add(c);
      }
      for (const other of list) {
        if (chosen.includes(other) || handled.has(other)) continue;
        drop(other, chosen[0] ?? list[0]!);
      }
      kept.push(...chosen);
    }
    winners.push(...kept);
  }
  for (const [file, entry] of [...supersededByRun].sort(([a], [b]) => compareStrings(a, b))) {
    sink.add('run-superseded', { file }, { model: entry.run.model, ts: entry.run.files.ts, by: [...entry.by].sort().join(', '), tasks: entry.tasks.sort().join(', ') });
  }
  return { winners, superseded };
}
