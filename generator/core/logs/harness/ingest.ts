import * as path from 'node:path';
import { countSkip, emptyTally, type Finding, type Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { compareStrings, MatrixBuilder } from '../builder.js';
import { mapModelName, type ModelMapping } from '../mapping.js';
import type { ScoreMatrix } from '../matrix.js';
import { FindingSink } from '../sink.js';
import { discoverRuns, type RunFiles } from './discover.js';
import { chooseMetric, metricLabel, type MetricChoice, type MetricRule } from './metric-choice.js';
import { isResultsJson, parseResults, type MetricKey, type RunInfo } from './results.js';
import { readSampleFile, type SampleBlock } from './samples.js';

export interface IngestOptions {
  mapping?: ModelMapping;
  /** `--metric` rules, first match per task wins. */
  metrics?: MetricRule[];
  /** `--run MODEL=TIMESTAMP`: use that run for the model's tasks it covers. */
  pins?: Record<string, string>;
  /** Tail-only parsing of sample lines (default true); false parses every line fully. */
  fastPath?: boolean;
}

export interface SupersededRun {
  model: string;
  task: string;
  kept: { ts: string; file: string };
  dropped: { ts: string; file: string };
}

export interface CoverageCell {
  /** Instances with a score in the matrix. */
  observed: number;
  /** Docs the run evaluated (n-samples.effective), when known. */
  expected?: number;
  /** Timestamp of the run the cells came from (harness logs only). */
  ts?: string;
}

export interface Coverage {
  models: string[];
  tasks: string[];
  cells: Record<string, Record<string, CoverageCell>>;
}

interface LoadedRun {
  files: RunFiles;
  info: RunInfo;
  rawModel: string;
  model: string;
}

interface Winner {
  run: LoadedRun;
  task: string;
  file: string;
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
  const sink = new FindingSink();
  const tally = emptyTally();
  const builder = new MatrixBuilder(sink);
  const discovery = await discoverRuns(vfs, roots, sink);
  for (const o of discovery.orphans) {
    sink.add('samples-orphan', { file: o.file }, { task: o.task, ts: o.ts });
    countSkip(tally, 'orphan-samples-file');
  }

  // 1. Results files → model names and what each run reports.
  const loaded: LoadedRun[] = [];
  for (const files of discovery.runs) {
    let json: unknown;
    try {
      json = JSON.parse(await vfs.readText(files.resultsFile));
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
    const model = mapModelName(options.mapping, rawModel, ...(info.modelNameSanitized ? [info.modelNameSanitized] : []), ...(folder ? [folder] : []));
    loaded.push({ files, info, rawModel, model });
    const withSamples = [...info.leafTasks.keys()].filter((t) => files.samples.has(t));
    if (withSamples.length === 0 && info.leafTasks.size > 0) {
      sink.add('run-without-samples', { file: files.resultsFile }, { model, ts: files.ts, tasks: info.leafTasks.size });
    } else {
      for (const task of [...info.leafTasks.keys()].sort()) {
        if (!files.samples.has(task)) sink.add('samples-missing', { file: files.resultsFile }, { model, task });
      }
    }
    for (const task of files.samples.keys()) {
      if (!info.leafTasks.has(task)) {
        sink.add('samples-orphan', { file: files.samples.get(task)! }, { task, ts: files.ts });
        countSkip(tally, 'orphan-samples-file');
      }
    }
  }

  // 2. Newest run per (model, task), unless pinned.
  const pins = options.pins ?? {};
  const pinFor = (run: LoadedRun) => pins[run.model] ?? pins[run.rawModel] ?? (run.info.modelNameSanitized ? pins[run.info.modelNameSanitized] : undefined);
  for (const [pinModel, ts] of Object.entries(pins).sort()) {
    const runs = loaded.filter((r) => r.model === pinModel || r.rawModel === pinModel || r.info.modelNameSanitized === pinModel);
    if (!runs.some((r) => r.files.ts === ts)) {
      sink.add('run-pin-missing', {}, { model: pinModel, ts, available: [...new Set(runs.map((r) => r.files.ts))].sort().join(', ') });
    }
  }
  const candidates = new Map<string, Winner[]>();
  for (const run of loaded) {
    for (const [task, file] of run.files.samples) {
      if (!run.info.leafTasks.has(task)) continue;
      const key = `${run.model}\u0000${task}`;
      if (!candidates.has(key)) candidates.set(key, []);
      candidates.get(key)!.push({ run, task, file });
    }
  }
  const winners: Winner[] = [];
  const superseded: SupersededRun[] = [];
  const supersededByRun = new Map<string, { run: LoadedRun; by: Set<string>; tasks: string[] }>();
  for (const key of [...candidates.keys()].sort()) {
    const list = candidates.get(key)!.sort((a, b) => compareStrings(b.run.files.ts, a.run.files.ts) || compareStrings(a.file, b.file));
    const pin = pinFor(list[0]!.run);
    const pinned = pin !== undefined ? list.find((w) => w.run.files.ts === pin) : undefined;
    const winner = pinned ?? list[0]!;
    winners.push(winner);
    for (const other of list) {
      if (other === winner) continue;
      if (other.run.files.ts === winner.run.files.ts) {
        sink.add('run-duplicate', { file: other.file }, { model: winner.run.model, ts: winner.run.files.ts, task: winner.task, kept: winner.file });
      }
      superseded.push({ model: winner.run.model, task: winner.task, kept: { ts: winner.run.files.ts, file: winner.file }, dropped: { ts: other.run.files.ts, file: other.file } });
      const entry = supersededByRun.get(other.run.files.resultsFile) ?? { run: other.run, by: new Set<string>(), tasks: [] };
      entry.by.add(winner.run.files.ts || '(none)');
      entry.tasks.push(winner.task);
      supersededByRun.set(other.run.files.resultsFile, entry);
      countSkip(tally, 'superseded-samples-file');
    }
  }
  for (const [file, entry] of [...supersededByRun].sort(([a], [b]) => compareStrings(a, b))) {
    sink.add('run-superseded', { file }, { model: entry.run.model, ts: entry.run.files.ts, by: [...entry.by].sort().join(', '), tasks: entry.tasks.sort().join(', ') });
  }

  // 3. One metric per task, from what every winning run reports.
  const byTask = new Map<string, Winner[]>();
  for (const w of winners) {
    if (!byTask.has(w.task)) byTask.set(w.task, []);
    byTask.get(w.task)!.push(w);
  }
  const choices = new Map<string, MetricChoice>();
  const skippedTasks: string[] = [];
  for (const task of [...byTask.keys()].sort()) {
    const runs = byTask.get(task)!;
    const first = runs[0]!.run.info.leafTasks.get(task)!;
    const shared: MetricKey[] = first.metrics.filter((k) =>
      runs.every((w) => w.run.info.leafTasks.get(task)!.metrics.some((o) => o.metric === k.metric && o.filter === k.filter)),
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
      sink.add('metric-not-found', { file: runs[0]!.run.files.resultsFile }, {
        task,
        metric: rule?.metric ?? '(any)',
        filter: rule?.filter,
        available: shared.map((k) => `${k.metric},${k.filter}`).join(' ') || 'none',
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
  for (const task of [...byTask.keys()].sort()) {
    const choice = choices.get(task)!;
    const runs = byTask.get(task)!.sort((a, b) => compareStrings(a.run.model, b.run.model));
    // Files are read a few at a time (I/O overlaps parsing); each gets its own sink and
    // tally, merged back in model order so findings come out in the same order every run.
    const blocks = await mapInOrder(runs, READ_AHEAD, async (w) => {
      const tr = w.run.info.leafTasks.get(task)!;
      const own = new FindingSink();
      const ownTally = emptyTally();
      const block = await readSampleFile(
        vfs,
        w.file,
        {
          metric: choice.metric,
          filter: choice.filter,
          filterOrder: tr.filters.length ? tr.filters : [choice.filter],
          docsPerFilter: tr.nSamples?.effective,
          jsonArray: w.run.files.legacyArrays,
          fastPath: options.fastPath,
        },
        own,
        ownTally,
      );
      return { w, block, findings: own.close(), tally: ownTally };
    });
    for (const { w, block, findings, tally: t } of blocks) {
      sink.push(...findings);
      addTally(tally, t);
      checkAgainstResults(w, block, choice, sink);
      if (!versions.has(w.run.info.harnessVersion)) versions.set(w.run.info.harnessVersion, new Set());
      versions.get(w.run.info.harnessVersion)!.add(w.run.model);
    }
    placeTask(task, choice, blocks, builder, sink, tally, coverage);
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

const READ_AHEAD = 4;

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

/** Counts against n-samples, the aggregate in the results file, and the task hash. */
function checkAgainstResults(w: Winner, block: SampleBlock, choice: MetricChoice, sink: FindingSink): void {
  const tr = w.run.info.leafTasks.get(w.task)!;
  const found = block.perFilter[choice.filter] ?? 0;
  const expected = tr.nSamples?.effective;
  if (expected !== undefined && found < expected) sink.add('samples-count-mismatch', { file: w.file }, { found, expected, filter: choice.filter });
  const isMean = (tr.aggregation[choice.metric] ?? (['acc', 'acc_norm', 'exact_match', 'acc_mutual_info', 'acc_bytes'].includes(choice.metric) ? 'mean' : undefined)) === 'mean';
  const reported = tr.aggregates[`${choice.metric},${choice.filter}`];
  if (isMean && reported !== undefined && block.values.length > 0 && block.values.length === found) {
    const mean = block.sum / block.values.length;
    if (Math.abs(mean - reported) > 1e-9 * Math.max(1, Math.abs(reported))) {
      sink.add('aggregate-mismatch', { file: w.file }, { metric: metricLabel(choice), count: block.values.length, mean, reported });
    }
  }
  if (tr.taskHash && block.taskHash && tr.taskHash !== block.taskHash) {
    sink.add('task-hash-mismatch', { file: w.file }, { found: block.taskHash, expected: tr.taskHash });
  }
  if (!block.hasHashes && block.values.length) sink.add('hashes-unavailable', { file: w.file }, { model: w.run.model, task: w.task });
}

/**
 * Identity across models: per doc, the (doc, prompt, target) hash triple most models agree
 * on is the reference; a model whose triple differs is not merged for that doc.
 */
function placeTask(
  task: string,
  choice: MetricChoice,
  blocks: Array<{ w: Winner; block: SampleBlock }>,
  builder: MatrixBuilder,
  sink: FindingSink,
  tally: Tally,
  coverage: Coverage,
): void {
  const label = metricLabel(choice);
  // Pass 1: the first hash triple seen per doc is the reference; note docs where models differ.
  const slotOf = new Map<number, number>();
  const refDoc: string[] = [];
  const refPrompt: string[] = [];
  const refTarget: string[] = [];
  const refCount: number[] = [];
  const disputed = new Set<number>();
  for (const { block } of blocks) {
    block.docIds.forEach((doc, k) => {
      const dh = block.docHashes[k]!;
      if (!dh) return;
      const slot = slotOf.get(doc);
      if (slot === undefined) {
        slotOf.set(doc, refDoc.length);
        refDoc.push(dh);
        refPrompt.push(block.promptHashes[k]!);
        refTarget.push(block.targetHashes[k]!);
        refCount.push(0);
      } else if (refDoc[slot] !== dh || refPrompt[slot] !== block.promptHashes[k] || refTarget[slot] !== block.targetHashes[k]) {
        disputed.add(slot);
      }
    });
  }
  // Pass 2, disputed docs only: the triple most models hold wins; ties go to the smaller
  // triple so the outcome does not depend on read order.
  if (disputed.size) {
    const votes = new Map<number, Map<string, number>>();
    for (const { block } of blocks) {
      block.docIds.forEach((doc, k) => {
        const slot = slotOf.get(doc);
        if (slot === undefined || !disputed.has(slot) || !block.docHashes[k]) return;
        const triple = `${block.docHashes[k]}\u0000${block.promptHashes[k]}\u0000${block.targetHashes[k]}`;
        let v = votes.get(slot);
        if (!v) votes.set(slot, (v = new Map()));
        v.set(triple, (v.get(triple) ?? 0) + 1);
      });
    }
    for (const [slot, v] of votes) {
      const [best, count] = [...v].sort(([a, ca], [b, cb]) => cb - ca || (a < b ? -1 : a > b ? 1 : 0))[0]!;
      [refDoc[slot], refPrompt[slot], refTarget[slot]] = best.split('\u0000') as [string, string, string];
      refCount[slot] = count;
    }
  }

  builder.setMetric(task, label, { file: blocks[0]?.w.file ?? task });
  for (const { w, block } of blocks) {
    const index: number[] = [];
    const values: number[] = [];
    const lines: number[] = [];
    const mismatched: Record<'doc_hash' | 'prompt_hash' | 'target_hash', { count: number; docId: number; majority: number }> = {
      doc_hash: { count: 0, docId: -1, majority: 0 },
      prompt_hash: { count: 0, docId: -1, majority: 0 },
      target_hash: { count: 0, docId: -1, majority: 0 },
    };
    block.docIds.forEach((doc, k) => {
      const slot = block.docHashes[k] ? slotOf.get(doc) : undefined;
      if (slot !== undefined && disputed.has(slot)) {
        const field =
          block.docHashes[k] !== refDoc[slot] ? 'doc_hash' : block.promptHashes[k] !== refPrompt[slot] ? 'prompt_hash' : block.targetHashes[k] !== refTarget[slot] ? 'target_hash' : undefined;
        if (field) {
          const m = mismatched[field];
          if (m.count++ === 0) {
            m.docId = doc;
            m.majority = refCount[slot]!;
          }
          tally.rejected++;
          tally.accepted--;
          return;
        }
      }
      const at = builder.instance(task, String(doc));
      if (slot !== undefined) builder.setDocHash(task, at, refDoc[slot]!);
      index.push(at);
      values.push(block.values[k]!);
      lines.push(block.lines[k]!);
    });
    for (const field of ['doc_hash', 'prompt_hash', 'target_hash'] as const) {
      const m = mismatched[field];
      if (!m.count) continue;
      sink.add(field === 'doc_hash' ? 'instance-hash-conflict' : 'prompt-hash-conflict', { file: w.file }, {
        model: w.run.model,
        task,
        count: m.count,
        docId: m.docId,
        majority: m.majority,
        field,
      });
    }
    builder.addBlock({ model: w.run.model, task, index: Int32Array.from(index), values: Float64Array.from(values), lines: Int32Array.from(lines), file: w.file });
    const cell: CoverageCell = { observed: index.length, ts: w.run.files.ts };
    const expected = w.run.info.leafTasks.get(task)?.nSamples?.effective;
    if (expected !== undefined) cell.expected = expected;
    (coverage.cells[w.run.model] ??= {})[task] = cell;
  }
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
