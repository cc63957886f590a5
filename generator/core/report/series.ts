/**
 * The checkpoint series (`aptpace report`): every checkpoint in a score store (models that are
 * neither the fit's training models nor reference models) predicted with one model file, plus
 * checkpoints only `check --history` has seen, ordered along training (step, tokens, or the
 * reference file's / history's order). Per target: the predicted score with its interval along
 * training, the reference models' known scores as rules, and a table saying which predictions
 * are flagged. Pure apart from PACE's prediction; same inputs, same bytes.
 */
import { findingFactory, type Finding } from '../kernel/findings.js';
import type { PaceModelFile } from '../pace/model-file/model-file.js';
import type { TargetForecast } from '../pace/predict.js';
import type { ScoreMatrix } from '../logs/matrix.js';
import type { ReferenceFile } from '../workflow/reference.js';
import { checkFindings } from './check-findings.js';
import type { HistoryEntry } from './history.js';

export const SERIES_FORMAT = 'aptpace-series';
export const SERIES_VERSION = 1;

const make = findingFactory(checkFindings);

export interface SeriesTarget {
  target: string;
  predicted: number | null;
  /** 95% prediction interval (target scale). */
  interval: [number, number] | null;
  /** The interval is the whole valid range: too few training models for a 95% conformal bound. */
  intervalUnbounded: boolean;
  /** Why the prediction is not vouched for, in words; empty when it is. */
  flags: string[];
}

export interface SeriesCheckpoint {
  model: string;
  step: number | null;
  tokens: number | null;
  /** store: predicted now from the store's scores; history: as recorded by `check --history`. */
  source: 'store' | 'history';
  /** False when a history entry was predicted with another model file. */
  sameModelFile: boolean;
  targets: SeriesTarget[];
}

export interface SeriesResult {
  format: typeof SERIES_FORMAT;
  version: typeof SERIES_VERSION;
  modelFile: { path: string; sha256: string };
  /** What the x axis of the trend charts is. */
  axis: 'step' | 'tokens' | 'order';
  checkpoints: SeriesCheckpoint[];
  /** The fit's training models and their known target scores (target scale). */
  references: Array<{ model: string; scores: Record<string, number> }>;
  findings: Finding[];
}

export interface SeriesInput {
  model: PaceModelFile;
  modelFile: { path: string; sha256: string };
  matrix: ScoreMatrix | null;
  reference: ReferenceFile | null;
  history: HistoryEntry[];
  /** PACE's prediction for one checkpoint (injected: the CLI passes predictPace). */
  predict: (name: string, scores: Map<string, number>) => Promise<{ forecasts: TargetForecast[]; findings: Finding[] }>;
  scoresOf: (matrix: ScoreMatrix, name: string) => Map<string, number> | null;
}

function forecastFlags(f: TargetForecast): string[] {
  const flags: string[] = [];
  if (f.concerns.includes('no-demonstrated-skill')) flags.push('no demonstrated skill (cross-validated MAE not better than the mean predictor)');
  if (f.concerns.includes('below-training-range')) flags.push('below every training model on the proxy set: extrapolated');
  if (f.concerns.includes('proxy-inconsistent')) flags.push('proxy score above what its other items explain: the proxy items may have been seen');
  if (f.concerns.includes('outside-training-range')) flags.push(`outside the training range (${f.outOfRange.length} embedding coordinate(s)): extrapolated`);
  if (f.guarded) flags.push('range guard: training mean');
  if (f.missingInstances) flags.push(`${f.missingInstances} of ${f.proxyInstances} proxy instances missing`);
  return flags;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function buildSeries(input: SeriesInput): Promise<SeriesResult> {
  const { model } = input;
  const findings: Finding[] = [];
  const training = new Set([...model.data.poolModels, ...model.targets.flatMap((t) => t.trainingModels.map((m) => m.name))]);
  const referenceNames = new Set(input.reference?.references.map((r) => r.name) ?? []);
  const planned = new Map((input.reference?.checkpoints ?? []).map((c, i) => [c.name, { i, step: c.step ?? null, tokens: c.tokens ?? null }]));
  const recorded = new Map(input.history.map((e, i) => [e.model, { i, entry: e }]));

  const checkpoints: SeriesCheckpoint[] = [];
  const storeNames = (input.matrix?.models ?? []).map((m) => m.name).filter((n) => !training.has(n) && !referenceNames.has(n));
  for (const name of [...storeNames].sort(byName)) {
    const scores = input.scoresOf(input.matrix!, name);
    if (!scores) continue;
    const predicted = await input.predict(name, scores);
    findings.push(...predicted.findings);
    checkpoints.push({
      model: name,
      step: planned.get(name)?.step ?? recorded.get(name)?.entry.step ?? null,
      tokens: planned.get(name)?.tokens ?? null,
      source: 'store',
      sameModelFile: true,
      targets: model.targets.map((t) => {
        const f = predicted.forecasts.find((x) => x.target === t.target);
        return f
          ? { target: t.target, predicted: f.predicted, interval: f.interval, intervalUnbounded: f.intervals.some((iv) => iv.level === 0.95 && iv.unbounded), flags: forecastFlags(f) }
          : { target: t.target, predicted: null, interval: null, intervalUnbounded: false, flags: ['no prediction'] };
      }),
    });
  }
  const fromHistory = input.history.filter((e) => !storeNames.includes(e.model) && !training.has(e.model) && !referenceNames.has(e.model));
  for (const e of fromHistory) {
    const same = e.modelFileSha256 === input.modelFile.sha256;
    checkpoints.push({
      model: e.model,
      step: planned.get(e.model)?.step ?? e.step,
      tokens: planned.get(e.model)?.tokens ?? null,
      source: 'history',
      sameModelFile: same,
      targets: model.targets.map((t) => {
        const h = e.targets.find((x) => x.target === t.target);
        const flags = [...(h?.status === 'cannot-judge' ? ['not judged when checked (no demonstrated skill or outside the training range)'] : []), ...(h?.status === 'no-prediction' ? ['no prediction'] : []), ...(same ? [] : ['predicted with another model file'])];
        return { target: t.target, predicted: h?.predicted ?? null, interval: h?.interval ?? null, intervalUnbounded: false, flags };
      }),
    });
  }
  if (fromHistory.length) findings.push(make('report-history-only', {}, { count: fromHistory.length, models: fromHistory.map((e) => e.model).join(', ') }));
  if (!checkpoints.length) findings.push(make('report-no-checkpoints', {}, { excluded: (input.matrix?.models.length ?? 0) - storeNames.length }));

  const axis: SeriesResult['axis'] = checkpoints.length && checkpoints.every((c) => c.step !== null) ? 'step' : checkpoints.length && checkpoints.every((c) => c.tokens !== null) ? 'tokens' : 'order';
  // Without a shared axis: the reference file's order, then the history's, then by name.
  const rank = (c: SeriesCheckpoint) => planned.get(c.model)?.i ?? planned.size + (recorded.get(c.model)?.i ?? input.history.length);
  checkpoints.sort((a, b) =>
    axis === 'step' ? a.step! - b.step! || byName(a.model, b.model) : axis === 'tokens' ? a.tokens! - b.tokens! || byName(a.model, b.model) : rank(a) - rank(b) || byName(a.model, b.model),
  );

  const refNames = [...new Set(model.targets.flatMap((t) => t.trainingModels.map((m) => m.name)))].sort(byName);
  const references = refNames.map((name) => ({
    model: name,
    scores: Object.fromEntries(model.targets.flatMap((t) => t.trainingModels.filter((m) => m.name === name).map((m) => [t.target, m.score * t.displayFactor] as const))),
  }));
  return { format: SERIES_FORMAT, version: SERIES_VERSION, modelFile: input.modelFile, axis, checkpoints, references, findings };
}

/** x position of each checkpoint on the trend charts. */
export function seriesX(result: SeriesResult): number[] {
  return result.checkpoints.map((c, i) => (result.axis === 'step' ? c.step! : result.axis === 'tokens' ? c.tokens! : i + 1));
}
