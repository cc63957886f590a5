import type { ProgressCallback } from '../../kernel/progress.js';
import * as path from 'node:path';
import { countSkip, emptyTally, type Finding, type Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { compareStrings, MatrixBuilder } from '../builder.js';
import { mapModelName, type ModelMapping } from '../mapping.js';
import type { ScoreMatrix } from '../matrix.js';
import { FindingSink } from '../sink.js';
import type { FindingListener } from '../../kernel/finding-collector.js';
import { discoverRuns, type RunFiles } from './discover.js';
import { chooseMetric, metricLabel, type MetricChoice, type MetricRule } from './metric-choice.js';
import { placeTask, type Coverage, type PlacedBlock } from './place.js';
import { isResultsJson, parseResults, splitMetricKey, type MetricKey, type RunInfo, type TaskResult } from './results.js';
import { inThreadSampleReader, type SampleFileReader } from './sample-file.js';
import type { MetricRecompute, SampleBlock } from './samples.js';
import { selectRuns, type LoadedRun, type SupersededRun, type Winner } from './select.js';

export type { Coverage, CoverageCell } from './place.js';
export type { SupersededRun } from './select.js';

export interface IngestOptions {
  mapping?: ModelMapping;
  /** `--metric` rules, first match per task wins. */
  metrics?: MetricRule[];
  /** `--run MODEL=TIMESTAMP|RESULTS-FILE|FOLDER`: use that run for the model's tasks it covers. */
  pins?: Record<string, string>;
  /** Tail-only parsing of sample lines (default true); false parses every line fully. */
  fastPath?: boolean;
  /** Called as samples files are read (done, total). */
  onProgress?: ProgressCallback;
  /** Reads one samples file (e.g. on a worker thread); default: in this thread through `vfs`. A reader that fails falls back to the in-thread one. */
  readSamples?: SampleFileReader;
  /** Every finding as it comes (the CLI's --findings-file); only a bounded number are returned. */
  onFinding?: FindingListener;
}

/**
 * Ingests lm-evaluation-harness output under any number of roots into one models ×
 * instances matrix. Newest run wins per (model, task) unless pinned; instances are
 * `<task>/<doc_id>`, checked across models by doc/prompt/target hashes; one metric per
 * task (chosen by rule or default, recorded in provenance). Nothing is dropped silently.
 */
export async function ingestLogs(
  vfs: Vfs,
  roots: string[],
  options: IngestOptions = {},
): Promise<{ matrix: ScoreMatrix; findings: Finding[]; tally: Tally; coverage: Coverage; superseded: SupersededRun[] }> {
  const sink = new FindingSink({ onFinding: options.onFinding });
  const tally = emptyTally();
  const builder = new MatrixBuilder(sink);
  const discovery = await discoverRuns(vfs, roots, sink);
  for (const o of discovery.orphans) {
    sink.add('samples-orphan', { file: o.file }, { task: o.task, ts: o.ts });
    countSkip(tally, 'orphan-samples-file');
  }

  // 1. Results files → model names and what each run reports.
  const loaded: LoadedRun[] = [];
  // Read a few files ahead of the one parsed (one round trip per file otherwise), errors kept for their turn.
  const texts: Promise<string | { error: Error }>[] = [];
  for (const [i, files] of discovery.runs.entries()) {
    while (texts.length <= i + RESULTS_AHEAD && texts.length < discovery.runs.length) texts.push(vfs.readText(discovery.runs[texts.length]!.resultsFile).catch((error: Error) => ({ error })));
    let json: unknown;
    try {
      const text = await texts[i]!;
      // Parsed once: the text need not stay held.
      delete texts[i];
      if (typeof text !== 'string') throw text.error;
      json = JSON.parse(text);
    } catch (err) {
      sink.add('results-unreadable', { file: files.resultsFile }, { reason: (err as Error).message.split('\n')[0], samples: files.samples.size });
      continue;
    }
    if (!isResultsJson(json)) {
      // A `<stem>_<ts>.json` that is not harness output (e.g. some other tool's file) is only an error if samples claim it.
      if (files.samples.size > 0) sink.add('results-unreadable', { file: files.resultsFile }, { reason: 'not an lm-evaluation-harness results file', samples: files.samples.size });
      else countSkip(tally, 'non-results-json');
      continue;
    }
    const info = parseResults(json);
    if (files.legacyArrays) matchLegacySamples(files, info, sink);
    const folder = path.resolve(files.dir) === path.resolve(files.root) ? undefined : path.basename(files.dir);
    const rawModel = info.modelName ?? folder ?? 'unnamed-model';
    // A run plan's model-names.csv keys runs by the job's output folder (`runs/<model>/<shard>`,
    // from the root's own name down): the harness folder's parent, or the folder itself.
    const jobFolders = [path.dirname(files.dir), files.dir].map((d) => path.join(path.basename(files.root), path.relative(files.root, d)).split(path.sep).join('/'));
    const byJobFolder = options.mapping ? jobFolders.map((f) => options.mapping![f]).find((m) => m !== undefined) : undefined;
    const model = byJobFolder ?? mapModelName(options.mapping, rawModel, ...(info.modelNameSanitized ? [info.modelNameSanitized] : []), ...(folder ? [folder] : []));
    loaded.push({ files, info, rawModel, model });
    const withSamples = [...info.leafTasks.keys()].filter((t) => files.samples.has(t));
    if (withSamples.length === 0 && info.leafTasks.size > 0) {
      sink.add('run-without-samples', { file: files.resultsFile }, { model, ts: files.ts, tasks: info.leafTasks.size });
    } else {
      for (const task of [...info.leafTasks.keys()].sort()) {
        if (!files.samples.has(task)) {
          sink.add('samples-missing', { file: files.resultsFile }, { model, task });
          tally.rejected++;
        }
      }
    }
    for (const task of files.samples.keys()) {
      if (!info.leafTasks.has(task)) {
        sink.add('samples-orphan', { file: files.samples.get(task)! }, { task, ts: files.ts });
        countSkip(tally, 'orphan-samples-file');
      }
    }
  }

  // 2. Which samples files to use per (model, task): pins, complete over partial, shards, conflicts.
  const pins = options.pins ?? {};
  const { winners, superseded } = selectRuns(loaded, pins, sink, tally);

  // 3. One metric per task, from what every winning run reports.
  const byTask = new Map<string, Winner[]>();
  for (const w of winners) {
    if (!byTask.has(w.base)) byTask.set(w.base, []);
    byTask.get(w.base)!.push(w);
  }
  const choices = new Map<string, MetricChoice>();
  const skippedTasks: string[] = [];
  for (const task of [...byTask.keys()].sort()) {
    const runs = byTask.get(task)!;
    const first = runs[0]!.run.info.leafTasks.get(runs[0]!.task)!;
    const shared: MetricKey[] = first.metrics.filter((k) =>
      runs.every((w) => w.run.info.leafTasks.get(w.task)!.metrics.some((o) => o.metric === k.metric && o.filter === k.filter)),
    );
    const choice = chooseMetric(task, shared, first.higherIsBetter, options.metrics ?? [], first.outputType);
    if (!choice && shared.length > 0) {
      sink.add('metric-no-default', { file: runs[0]!.run.files.resultsFile }, { task, available: shared.map((k) => `${k.metric},${k.filter}`).join(' ') });
      for (const _ of runs) countSkip(tally, 'task-without-instance-metric');
      skippedTasks.push(task);
      byTask.delete(task);
      continue;
    }
    if (!choice || 'missing' in choice) {
      const rule = choice && 'missing' in choice ? choice.missing : undefined;
      // Name a run that lacks the metric, and what the runs report between them.
      const lacks = (w: Winner) => {
        const ms = w.run.info.leafTasks.get(w.task)!.metrics;
        return rule ? !ms.some((k) => k.metric === rule.metric && (rule.filter === undefined || k.filter === rule.filter)) : ms.length === 0;
      };
      const lacking = runs.filter(lacks);
      const reported = [...new Set(runs.flatMap((w) => w.run.info.leafTasks.get(w.task)!.metrics.map((k) => `${k.metric},${k.filter}`)))].sort();
      sink.add('metric-not-found', { file: (lacking[0] ?? runs[0]!).run.files.resultsFile }, {
        task,
        metric: rule?.metric ?? '(any)',
        filter: rule?.filter,
        lacking: lacking.length,
        runs: runs.length,
        shared: shared.map((k) => `${k.metric},${k.filter}`).join(' ') || 'none',
        available: reported.join(' ') || 'none',
      });
      for (const _ of runs) countSkip(tally, 'task-without-metric');
      skippedTasks.push(task);
      byTask.delete(task);
      continue;
    }
    choices.set(task, choice);
    if (choice.reason === 'first' || choice.reason === 'first-higher-is-better') {
      sink.add('metric-choice-guessed', {}, { task, metric: choice.metric, filter: choice.filter, reason: choice.reason });
    }
    if (choice.otherFilters.length && choice.reason !== 'user') {
      sink.add('metric-filter-choice', {}, { task, metric: choice.metric, filter: choice.filter, filters: [choice.filter, ...choice.otherFilters].join(', ') });
    }
  }

  // 4. Read the winning samples files.
  const coverage: Coverage = { models: [], tasks: [], cells: {} };
  const versions = new Map<string, Set<string>>();
  const filesTotal = [...byTask.values()].reduce((n, runs) => n + runs.length, 0);
  const inThread = inThreadSampleReader(vfs);
  let filesRead = 0;
  const taskOrder = [...byTask.keys()].sort();
  // Files are read several at a time (I/O and worker threads overlap parsing), later tasks'
  // while this one is placed; each file gets its own sink and tally, merged back in model order
  // so findings come out in the same order every run. A file's findings past its sink's bound
  // go to the findings file at once (overflow), the held ones when the file is merged back.
  const readTask = (task: string) => {
    const choice = choices.get(task)!;
    const runs = byTask.get(task)!.sort((a, b) => compareStrings(a.run.model, b.run.model));
    // A pool queues every file of the task at once: its workers then never wait for this thread
    // (busy placing the previous task) to hand them the next file. The results held are the
    // task's blocks, which placing needs all at once anyway. In-thread reads stay a few at a
    // time: each holds a whole file.
    return mapInOrder(runs, options.readSamples ? runs.length : READ_AHEAD, async (w) => {
      const tr = w.run.info.leafTasks.get(w.task)!;
      const readOptions = {
        metric: choice.metric,
        filter: choice.filter,
        filterOrder: tr.filters.length ? tr.filters : [choice.filter],
        docsPerFilter: tr.nSamples?.effective,
        jsonArray: w.run.files.legacyArrays,
        fastPath: options.fastPath,
        fractionMetric: FRACTION_METRICS.has(choice.metric),
        ...recomputeFor(tr, choice),
      };
      const read = await (options.readSamples ?? inThread)(w.file, readOptions, options.onFinding).catch(() => inThread(w.file, readOptions, options.onFinding));
      options.onProgress?.(++filesRead, filesTotal, 'samples files read');
      return { w, ...read };
    });
  };
  // Tasks being read while one is placed: in-thread, the next one; with a pool, three, so that a
  // worker that finishes its share of one task goes on with the next while the other worker is
  // still busy, from the first task on.
  const window = options.readSamples ? 3 : 1;
  const pending: ReturnType<typeof readTask>[] = [];
  let started = 0;
  const fill = () => {
    while (pending.length < window && started < taskOrder.length) pending.push(readTask(taskOrder[started++]!));
  };
  for (let k = 0; k < taskOrder.length; k++) {
    const task = taskOrder[k]!;
    const choice = choices.get(task)!;
    fill();
    const blocks = await pending.shift()!;
    fill();
    for (const { w, block, findings, tally: t } of blocks) {
      sink.pushAll(findings);
      addTally(tally, t);
      if (!checkAgainstResults(w, block, choice, sink)) {
        // The file is not the one this run wrote (or not this run's): none of it is merged.
        tally.accepted -= block.values.length;
        tally.rejected += block.values.length;
        emptyBlock(block);
      }
      if (!versions.has(w.run.info.harnessVersion)) versions.set(w.run.info.harnessVersion, new Set());
      versions.get(w.run.info.harnessVersion)!.add(w.run.model);
    }
    placeTask(task, choice, blocks as PlacedBlock[], builder, sink, tally, coverage);
  }
  if (versions.size > 1) {
    sink.add('harness-version-mixed', {}, {
      versions: [...versions].sort(([a], [b]) => compareStrings(a, b)).map(([v, ms]) => `${v} (${[...ms].sort().join(', ')})`).join('; '),
    });
  }

  const runsProvenance = winnersByRun(winners);
  const { matrix, conflicts } = builder.build({
    kind: 'harness-logs',
    roots: [...roots],
    metricChoice: Object.fromEntries([...choices].map(([t, c]) => [t, { metric: c.metric, filter: c.filter, reason: c.reason }])),
    runs: runsProvenance,
    superseded: superseded.map((s) => ({ model: s.model, task: s.task, kept: s.kept.ts, dropped: s.dropped.file })),
    harnessVersions: [...versions.keys()].sort(),
    ...(skippedTasks.length ? { skippedTasks } : {}),
    ...(options.mapping ? { mapping: options.mapping } : {}),
    ...(options.metrics?.length ? { metricRules: options.metrics } : {}),
    ...(Object.keys(pins).length ? { pins } : {}),
  });
  tally.rejected += conflicts;
  tally.accepted -= conflicts;
  coverage.models = matrix.models.map((m) => m.name);
  coverage.tasks = [...choices.keys()].filter((t) => byTask.has(t)).sort(compareStrings);
  return { matrix, findings: sink.close(), tally, coverage, superseded };
}

function winnersByRun(winners: Winner[]) {
  const out = new Map<string, { model: string; rawModel: string; ts: string; results: string; harness: string; tasks: string[] }>();
  for (const w of winners) {
    const key = w.run.files.resultsFile;
    if (!out.has(key)) {
      out.set(key, { model: w.run.model, rawModel: w.run.rawModel, ts: w.run.files.ts, results: key, harness: w.run.info.harnessVersion, tasks: [] });
    }
    out.get(key)!.tasks.push(w.task);
  }
  return [...out.values()].map((r) => ({ ...r, tasks: r.tasks.sort() })).sort((a, b) => compareStrings(a.results, b.results));
}

const READ_AHEAD = 8;
/** Results files read ahead of the one parsed. */
const RESULTS_AHEAD = 8;

/** `fn` over `items` with at most `limit` in flight; results in input order. */
async function mapInOrder<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function addTally(into: Tally, from: Tally): void {
  into.read += from.read;
  into.accepted += from.accepted;
  into.rejected += from.rejected;
  for (const [k, v] of Object.entries(from.skipped ?? {})) {
    into.skipped ??= {};
    into.skipped[k] = (into.skipped[k] ?? 0) + v;
  }
}

const MEAN_METRICS = new Set(['acc', 'acc_norm', 'exact_match', 'acc_mutual_info', 'acc_bytes']);

/** Per-sample values of these metrics are fractions: anything outside [0, 1] is corrupt. */
const FRACTION_METRICS = new Set(['acc', 'acc_norm', 'acc_mutual_info', 'acc_bytes', 'exact_match', 'pass@1', 'pass_at_1']);

/** Metrics the reader can recompute from responses: only the harness's built-in scoring, never a task's own process_results. */
function recomputeFor(tr: TaskResult, choice: MetricChoice): { recompute?: MetricRecompute } {
  if (tr.customProcessResults) return {};
  if (choice.metric === 'acc' && tr.outputType === 'multiple_choice') return { recompute: { kind: 'mc-acc' } };
  const o = tr.metricOptions[choice.metric];
  if (choice.metric === 'exact_match' && tr.outputType === 'generate_until' && o && !o.regexes_to_ignore) {
    return { recompute: { kind: 'exact-match', ignoreCase: o.ignore_case === true, ignorePunctuation: o.ignore_punctuation === true, ignoreNumbers: o.ignore_numbers === true } };
  }
  return {};
}

function emptyBlock(block: SampleBlock): void {
  for (const list of [block.docIds, block.questionIds, block.values, block.lines, block.docHashes, block.promptHashes, block.targetHashes]) list.length = 0;
  block.sum = 0;
}

/**
 * Counts against n-samples, the aggregate in the results file, and the task hash. Returns
 * false when the file cannot be this run's samples (task hash or aggregate disagree).
 */
function checkAgainstResults(w: Winner, block: SampleBlock, choice: MetricChoice, sink: FindingSink): boolean {
  const tr = w.run.info.leafTasks.get(w.task)!;
  const found = block.perFilter[choice.filter] ?? 0;
  const expected = tr.nSamples?.effective;
  if (expected !== undefined && found !== expected && found > 0) sink.add('samples-count-mismatch', { file: w.file }, { found, expected, filter: choice.filter });
  let usable = true;
  // Every mean-aggregated metric the results report for this filter must equal the mean of
  // the records' values: a file from another run rarely matches on all of them.
  if (block.values.length > 0 && block.values.length === found) {
    for (const [key, reported] of Object.entries(tr.aggregates)) {
      const mk = splitMetricKey(key);
      if (!mk || mk.filter !== choice.filter) continue;
      const isMean = (tr.aggregation[mk.metric] ?? (MEAN_METRICS.has(mk.metric) ? 'mean' : undefined)) === 'mean';
      const own = mk.metric === choice.metric ? { sum: block.sum, count: block.values.length } : block.metricSums[mk.metric];
      if (!isMean || !own || own.count !== found) continue;
      const mean = own.sum / own.count;
      if (Math.abs(mean - reported) > 1e-9 * Math.max(1, Math.abs(reported))) {
        sink.add('aggregate-mismatch', { file: w.file }, { metric: mk.filter === 'none' ? mk.metric : key, count: own.count, mean, reported });
        usable = false;
      }
    }
  }
  if (tr.taskHash && block.taskHash && tr.taskHash !== block.taskHash) {
    sink.add('task-hash-mismatch', { file: w.file }, { found: block.taskHash, expected: tr.taskHash });
    usable = false;
  }
  if (!block.hasHashes && block.values.length) sink.add('hashes-unavailable', { file: w.file }, { model: w.run.model, task: w.task });
  else if (block.taskHash && !tr.taskHash && block.values.length) sink.add('task-hash-unchecked', { file: w.file }, { model: w.run.model, task: w.task });
  return usable;
}

/** ≤0.4.2 sample files are `<model_args with / and = → __>_<task>.jsonl`; match them to the results' tasks. */
function matchLegacySamples(files: RunFiles, info: RunInfo, sink: FindingSink): void {
  const prefix = info.modelArgsString ? info.modelArgsString.replace(/[/=]/g, '__') : undefined;
  const tasks = [...info.leafTasks.keys()].sort((a, b) => b.length - a.length);
  for (const file of files.legacyCandidates) {
    const name = path.basename(file, '.jsonl');
    const task = (prefix && name.startsWith(`${prefix}_`) && info.leafTasks.has(name.slice(prefix.length + 1)) ? name.slice(prefix.length + 1) : undefined) ??
      tasks.find((t) => name.endsWith(`_${t}`));
    if (task && !files.samples.has(task)) files.samples.set(task, file);
    else sink.add('samples-orphan', { file }, { task: task ?? name, ts: '' });
  }
}
