/** From the outcomes and aggregates collected per target to a TargetTable, and the scale helpers. */
import type { TargetTable } from '../matrix.js';
import { compareStrings } from '../builder.js';
import { FindingSink } from '../sink.js';

export type TargetScale = TargetTable['scale'];

export interface Aggregate {
  value: number;
  scale: TargetScale;
  metric?: string;
  file: string;
}

export interface Collect {
  aggregates: Map<string, Aggregate>;
  perInstance: Map<string, { outcomes: Record<string, number>; file: string }>;
}

export function assemble(target: string, c: Collect, sink: FindingSink): TargetTable {
  const aggModels = [...c.aggregates.keys()].sort(compareStrings);
  const first = aggModels.length ? c.aggregates.get(aggModels[0]!)! : undefined;
  const scale: TargetScale = first?.scale ?? 'fraction';
  const scores: Record<string, number> = {};
  const metrics: Record<string, string> = {};
  const files: Record<string, string> = {};
  for (const m of aggModels) {
    const agg = c.aggregates.get(m)!;
    if (agg.scale !== scale) {
      sink.add('target-scale-mixed', { file: agg.file }, { target, found: agg.scale, kept: scale });
    }
    scores[m] = toScale(agg.value, agg.scale, scale);
    if (agg.metric) metrics[m] = agg.metric;
    files[m] = agg.file;
  }
  const derived: string[] = [];
  let perInstance: Record<string, Record<string, number>> | undefined;
  for (const m of [...c.perInstance.keys()].sort(compareStrings)) {
    const { outcomes, file } = c.perInstance.get(m)!;
    perInstance ??= {};
    perInstance[m] = outcomes;
    const vals = Object.values(outcomes);
    if (!vals.length) continue;
    const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
    if (scores[m] === undefined && scale !== 'raw') {
      scores[m] = toScale(mean, 'fraction', scale);
      files[m] = file;
      derived.push(m);
    } else if (scores[m] !== undefined && scale !== 'raw') {
      const published = toScale(scores[m]!, scale, 'percent');
      const fromInstances = mean * 100;
      if (Math.abs(published - fromInstances) > 1) {
        sink.add('target-aggregate-mismatch', { file }, {
          model: m,
          target,
          published: `${round(published)}%`,
          derived: `${round(fromInstances)}%`,
          metric: metrics[m] ?? 'score',
          instances: vals.length,
        });
      }
    }
  }
  const table: TargetTable = {
    target,
    scores,
    scale,
    provenance: { files, ...(Object.keys(metrics).length ? { metrics } : {}), ...(derived.length ? { derivedFromInstances: derived } : {}) },
  };
  if (perInstance) table.perInstance = perInstance;
  return table;
}

/** Converts between the fraction and percent scales; `raw` values are left alone. */
export function toScale(value: number, from: TargetScale, to: TargetScale): number {
  if (from === to || from === 'raw' || to === 'raw') return value;
  return from === 'percent' ? value / 100 : value * 100;
}

/** A target's aggregate scores as fractions in [0, 1] (percent divided by 100; raw unchanged). */
export function fractionScores(table: TargetTable): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [m, v] of Object.entries(table.scores)) out[m] = toScale(v, table.scale, 'fraction');
  return out;
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

