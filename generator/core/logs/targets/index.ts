import * as path from 'node:path';
import { countSkip, emptyTally, type Finding, type Tally } from '../../kernel/findings.js';
import type { Vfs } from '../../kernel/vfs.js';
import { compareStrings } from '../builder.js';
import { delimiterFor, isMissingCell, parseCsv, parseScore } from '../csv.js';
import type { ModelMapping } from '../mapping.js';
import type { TargetTable } from '../matrix.js';
import { FindingSink } from '../sink.js';
import type { FindingListener } from '../../kernel/finding-collector.js';
import { walkFiles } from '../walk.js';
import { isPerInstanceHeader, outcomeOf, parseOutcomeCsv, parseOutcomeJsonl, type OutcomeRow, type RowProblem } from './per-instance-table.js';

import { assemble, toScale, type Aggregate, type Collect, type TargetScale } from './assemble.js';
import { appendAll, extent } from '../../kernel/arrays.js';

export { toScale, fractionScores, type TargetScale } from './assemble.js';

export interface TargetOptions {
  mapping?: ModelMapping;
  /** Scale of aggregate CSV tables; inferred from the value range when absent. */
  scale?: TargetScale;
  /** Rename targets, e.g. `{"swe-bench": "swebench"}` to match another source's names. */
  targetNames?: Record<string, string>;
  /** Every finding as it comes (the CLI's --findings-file); only a bounded number are returned. */
  onFinding?: FindingListener;
}

/** Recognised target files; a folder is walked and each file classified by path and content. */
export type TargetSourceKind = 'per-instance-json' | 'per-instance-table' | 'openhands-scores-json' | 'aggregate-json' | 'aggregate-csv';
export const targetSources = {
  'per-instance-json': { title: 'Per-instance outcomes', layout: '<model>/[instance_results/]<target>.json = {instance_id: {resolved: true|false|null, …}}' },
  'per-instance-table': { title: 'Per-instance outcome table', layout: '<target>.jsonl lines {model, instance, resolved: 0|1|true|false|null, target?} or CSV/TSV model,instance,resolved[,target]' },
  'openhands-scores-json': { title: 'OpenHands Index scores.json', layout: '<model>/scores.json = [{benchmark, score (percent), metric, …}]' },
  'aggregate-json': { title: 'Aggregate JSON', layout: '{model: {target: score}}' },
  'aggregate-csv': { title: 'Aggregate CSV/TSV', layout: 'model,<target>,<target>… (wide) or model,target,score (long)' },
} satisfies Record<TargetSourceKind, { title: string; layout: string }>;


/**
 * Reads agentic targets: per-instance `{instance_id: {resolved}}` files (the OpenHands
 * Index keeps one per model folder: `results/<model>/instance_results/<target>.json`),
 * OpenHands `scores.json` aggregates, and per-model aggregate tables (JSON or CSV).
 * `resolved: null` is an unobserved instance, never a failure.
 */
export async function readTargets(
  vfs: Vfs,
  inputs: string[],
  options: TargetOptions = {},
): Promise<{ targets: TargetTable[]; findings: Finding[]; tally: Tally; usedAliases: string[] }> {
  const sink = new FindingSink({ onFinding: options.onFinding });
  const tally = emptyTally();
  const byTarget = new Map<string, Collect>();
  const sources: Array<{ file: string; kind: TargetSourceKind }> = [];
  const usedAliases = new Set<string>();
  const model = (raw: string) => {
    const mapped = options.mapping?.[raw];
    if (mapped === undefined) return raw;
    usedAliases.add(raw);
    return mapped;
  };
  const targetName = (raw: string) => options.targetNames?.[raw] ?? raw;
  const collect = (target: string): Collect => {
    let c = byTarget.get(target);
    if (!c) byTarget.set(target, (c = { aggregates: new Map(), perInstance: new Map() }));
    return c;
  };
  const addAggregate = (rawModel: string, rawTarget: string, agg: Aggregate, where: { file: string; line?: number; field?: string }) => {
    const target = targetName(rawTarget);
    const name = model(rawModel);
    const c = collect(target);
    const prior = c.aggregates.get(name);
    tally.read++;
    if (prior) {
      if (toScale(prior.value, prior.scale, 'fraction') !== toScale(agg.value, agg.scale, 'fraction')) {
        sink.add('target-duplicate', where, { model: name, target, value: agg.value, kept: prior.value });
        tally.rejected++;
      } else countSkip(tally, 'duplicate-same');
      return;
    }
    c.aggregates.set(name, agg);
    tally.accepted++;
  };

  const files: string[] = [];
  for (const input of inputs) {
    const st = await vfs.stat(input);
    if (!st) sink.add('input-missing', { file: input }, { input });
    else if (st.isDirectory) {
      const found = await walkFiles(vfs, input, (f) => /\.(json|jsonl|csv|tsv|tab)$/i.test(f), sink);
      if (!found.length) sink.add('input-unrecognised', { file: input }, { input, reason: 'no .json/.jsonl/.csv files below it' });
      appendAll(files, found);
    } else files.push(input);
  }

  for (const file of files) {
    const base = path.basename(file);
    if (base === 'metadata.json') {
      countSkip(tally, 'metadata-file');
      continue;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await vfs.readBytes(file));
    } catch (err) {
      sink.add('input-unreadable', { file }, { reason: (err as Error).message });
      continue;
    }
    const stem = base.replace(/\.[^.]+$/, '');
    if (/\.jsonl$/i.test(file)) {
      placeOutcomes(file, parseOutcomeJsonl(text, stem));
      sources.push({ file, kind: 'per-instance-table' });
      continue;
    }
    if (/\.(csv|tsv|tab)$/i.test(file) && isPerInstanceHeader(parseCsv(text.split(/\r?\n/, 1)[0] ?? '', delimiterFor(file)).rows[0]?.fields ?? [])) {
      placeOutcomes(file, parseOutcomeCsv(text, file, stem));
      sources.push({ file, kind: 'per-instance-table' });
      continue;
    }
    if (/\.(csv|tsv|tab)$/i.test(file)) {
      readAggregateCsv(file, text);
      sources.push({ file, kind: 'aggregate-csv' });
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      sink.add('input-unreadable', { file }, { reason: `invalid JSON: ${(err as Error).message}` });
      continue;
    }
    const kind = classifyJson(file, json);
    if (!kind) {
      sink.add('input-unrecognised', { file }, { input: file, reason: 'JSON is neither per-instance outcomes, scores.json nor {model: {target: score}}' });
      continue;
    }
    sources.push({ file, kind });
    if (kind === 'per-instance-json') readPerInstance(file, json as Record<string, unknown>);
    else if (kind === 'openhands-scores-json') readOpenHandsScores(file, json as unknown[]);
    else readAggregateJson(file, json as Record<string, Record<string, unknown>>);
  }

  function readPerInstance(file: string, json: Record<string, unknown>): void {
    const dir = path.dirname(file);
    const modelDir = path.basename(dir) === 'instance_results' ? path.dirname(dir) : dir;
    const name = model(path.basename(modelDir));
    const target = targetName(path.basename(file, '.json'));
    const outcomes: Record<string, number> = {};
    let unscored = 0;
    for (const id of Object.keys(json).sort(compareStrings)) {
      tally.read++;
      const entry = json[id];
      const resolved = isObject(entry) ? entry.resolved : entry;
      if (resolved === null || resolved === undefined) {
        unscored++;
        countSkip(tally, 'resolved-null');
        continue;
      }
      // `{id: 0|1}` and `{id: true|false}` are read like `{id: {resolved: …}}`.
      const v = typeof resolved === 'string' ? undefined : outcomeOf(resolved);
      if (v === undefined || v === null) {
        sink.add('target-bad-value', { file, field: `${id}.resolved` }, { what: 'resolved', value: resolved, expected: 'true/false/0/1/null' });
        tally.rejected++;
        continue;
      }
      outcomes[id] = v;
      tally.accepted++;
    }
    if (unscored) sink.add('target-unscored', { file }, { count: unscored });
    addOutcomes(name, target, outcomes, file);
  }

  /** Rows of a per-instance table, grouped into one outcome set per (model, target). */
  function placeOutcomes(file: string, parsed: { rows: OutcomeRow[]; problems: RowProblem[] }): void {
    for (const p of parsed.problems) {
      tally.read++;
      tally.rejected++;
      sink.add('target-bad-value', { file, line: p.line, ...(p.field ? { field: p.field } : {}) }, { what: p.field ?? 'row', value: p.value, expected: p.reason });
    }
    const groups = new Map<string, { model: string; target: string; outcomes: Record<string, number>; unscored: number }>();
    for (const r of parsed.rows) {
      tally.read++;
      const name = model(r.model);
      const target = targetName(r.target);
      const key = JSON.stringify([name, target]);
      const g = groups.get(key) ?? { model: name, target, outcomes: {}, unscored: 0 };
      groups.set(key, g);
      if (r.value === null) {
        g.unscored++;
        countSkip(tally, 'resolved-null');
        continue;
      }
      if (g.outcomes[r.instance] !== undefined && g.outcomes[r.instance] !== r.value) {
        sink.add('target-duplicate', { file, field: r.instance }, { model: name, target: `${target}/${r.instance}`, value: r.value, kept: g.outcomes[r.instance] });
        tally.rejected++;
        continue;
      }
      if (g.outcomes[r.instance] !== undefined) {
        countSkip(tally, 'duplicate-same');
        continue;
      }
      g.outcomes[r.instance] = r.value;
      tally.accepted++;
    }
    for (const key of [...groups.keys()].sort(compareStrings)) {
      const g = groups.get(key)!;
      if (g.unscored) sink.add('target-unscored', { file }, { count: g.unscored });
      addOutcomes(g.model, g.target, g.outcomes, file);
    }
  }

  function addOutcomes(name: string, target: string, outcomes: Record<string, number>, file: string): void {
    const c = collect(target);
    const prior = c.perInstance.get(name);
    if (prior) {
      // Two files for one (model, target): merge, but a disagreement on an instance is a conflict.
      for (const [id, v] of Object.entries(outcomes)) {
        if (prior.outcomes[id] === undefined) prior.outcomes[id] = v;
        else if (prior.outcomes[id] !== v) {
          sink.add('target-duplicate', { file, field: id }, { model: name, target: `${target}/${id}`, value: v, kept: prior.outcomes[id] });
          tally.rejected++;
          tally.accepted--;
        }
      }
    } else c.perInstance.set(name, { outcomes, file });
  }

  function readOpenHandsScores(file: string, entries: unknown[]): void {
    const name = path.basename(path.dirname(file));
    entries.forEach((entry, i) => {
      const e = entry as Record<string, unknown>;
      const where = { file, record: i, field: 'score' };
      if (typeof e.score !== 'number' || !Number.isFinite(e.score)) {
        tally.read++;
        tally.rejected++;
        sink.add('target-bad-value', where, { what: 'score', value: e.score, expected: 'a finite number' });
        return;
      }
      addAggregate(name, String(e.benchmark), { value: e.score, scale: 'percent', metric: typeof e.metric === 'string' ? e.metric : undefined, file }, where);
    });
  }

  function readAggregateJson(file: string, json: Record<string, Record<string, unknown>>): void {
    const found: Array<{ m: string; t: string; v: number; where: { file: string; field: string } }> = [];
    for (const m of Object.keys(json).sort(compareStrings)) {
      for (const t of Object.keys(json[m]!).sort(compareStrings)) {
        const raw = json[m]![t];
        const where = { file, field: `${m}.${t}` };
        if (typeof raw !== 'number' || !Number.isFinite(raw)) {
          tally.read++;
          tally.rejected++;
          sink.add('target-bad-value', where, { what: 'score', value: raw, expected: 'a finite number' });
          continue;
        }
        found.push({ m, t, v: raw, where });
      }
    }
    placeAggregates(file, found);
  }

  function readAggregateCsv(file: string, text: string): void {
    const { rows, error } = parseCsv(text, delimiterFor(file));
    if (error) sink.add('table-parse-error', { file, line: error.line }, { reason: error.reason });
    const [header, ...body] = rows;
    if (!header) return;
    const cols = header.fields.map((h) => h.trim());
    const lower = cols.map((c) => c.toLowerCase());
    const long = lower.includes('model') && lower.includes('target') && lower.includes('score');
    // A long table may say its scale per row (`scale`: fraction or percent), as `plan` writes targets.csv.
    const scaleCol = long ? lower.indexOf('scale') : -1;
    const rowScales = new Map<string, TargetScale>();
    const found: Array<{ m: string; t: string; v: number; where: { file: string; line: number; field?: string } }> = [];
    for (const row of body) {
      const where = { file, line: row.line };
      if (row.fields.length !== cols.length) {
        tally.read++;
        tally.rejected++;
        sink.add('table-bad-row', where, { expected: cols.length, found: row.fields.length });
        continue;
      }
      const cells: Array<[string, string]> = long
        ? [[row.fields[lower.indexOf('target')]!.trim(), row.fields[lower.indexOf('score')]!]]
        : cols.slice(1).map((t, i) => [t, row.fields[i + 1]!] as [string, string]);
      const m = (long ? row.fields[lower.indexOf('model')]! : row.fields[0]!).trim();
      if (scaleCol >= 0) {
        const t = cells[0]![0];
        const said = row.fields[scaleCol]!.trim().toLowerCase();
        if (said !== 'fraction' && said !== 'percent') {
          tally.read++;
          tally.rejected++;
          sink.add('target-bad-value', { ...where, field: 'scale' }, { what: 'scale', value: said, expected: 'fraction or percent' });
          continue;
        }
        const before = rowScales.get(t);
        if (before && before !== said) {
          tally.read++;
          tally.rejected++;
          sink.add('target-bad-value', { ...where, field: 'scale' }, { what: 'scale', value: said, expected: `${before}, as the target's earlier rows say` });
          continue;
        }
        rowScales.set(t, said);
      }
      for (const [t, raw] of cells) {
        if (isMissingCell(raw)) {
          countSkip(tally, 'missing-cell');
          continue;
        }
        const v = parseScore(raw);
        if (v === undefined || m === '') {
          tally.read++;
          tally.rejected++;
          sink.add(m === '' ? 'table-empty-id' : 'table-bad-score', { ...where, field: m === '' ? cols[0] : t }, { value: raw });
          continue;
        }
        found.push({ m, t, v, where: { ...where, field: t } });
      }
    }
    placeAggregates(file, found, rowScales);
  }

  /** Aggregate tables carry no scale unless a `scale` column says it; else take the user's or infer it per target from the value range. */
  function placeAggregates(file: string, found: Array<{ m: string; t: string; v: number; where: { file: string; line?: number; field?: string } }>, stated = new Map<string, TargetScale>()): void {
    const perTarget = new Map<string, number[]>();
    for (const f of found) (perTarget.get(f.t) ?? perTarget.set(f.t, []).get(f.t)!).push(f.v);
    const scales = new Map<string, TargetScale>();
    for (const [t, vs] of perTarget) {
      if (stated.has(t)) scales.set(t, stated.get(t)!);
      else if (options.scale) scales.set(t, options.scale);
      else {
        const { min, max } = extent(vs)!;
        const scale: TargetScale = min >= 0 && max <= 1 ? 'fraction' : min >= 0 && max <= 100 ? 'percent' : 'raw';
        scales.set(t, scale);
        sink.add('target-scale-inferred', { file }, { target: t, min, max, scale });
        // 0.45 beside 62 is a fraction beside a percentage far more often than 0.45%: not guessed.
        const fractions = vs.filter((v) => v > 0 && v <= 1 && !Number.isInteger(v)).length;
        const percents = vs.filter((v) => v > 1).length;
        if (scale === 'percent' && fractions > 0 && percents > 0) sink.add('target-scale-ambiguous', { file }, { target: t, fractions, percents, scale });
      }
    }
    for (const f of found) addAggregate(f.m, f.t, { value: f.v, scale: scales.get(f.t)!, file }, f.where);
  }

  const targets: TargetTable[] = [];
  for (const target of [...byTarget.keys()].sort(compareStrings)) {
    targets.push(assemble(target, byTarget.get(target)!, sink));
  }
  return { targets, findings: sink.close(), tally, usedAliases: [...usedAliases].sort(compareStrings) };
}

function classifyJson(file: string, json: unknown): Exclude<TargetSourceKind, 'aggregate-csv'> | undefined {
  if (Array.isArray(json)) {
    return json.every((e) => isObject(e) && 'benchmark' in e && 'score' in e) && json.length > 0 ? 'openhands-scores-json' : undefined;
  }
  if (!isObject(json)) return undefined;
  const values = Object.values(json);
  if (values.length === 0) return path.basename(path.dirname(file)) === 'instance_results' ? 'per-instance-json' : undefined;
  if (values.every((v) => isObject(v) && 'resolved' in v)) return 'per-instance-json';
  if (values.every((v) => typeof v === 'boolean' || v === null || v === 0 || v === 1)) return 'per-instance-json';
  if (values.every((v) => isObject(v) && Object.values(v).every((x) => typeof x === 'number' || typeof x === 'string' || x === null))) return 'aggregate-json';
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
