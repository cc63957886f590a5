/**
 * `predict`: place a new checkpoint with a fitted model file. The proxy instances are read
 * (and, for the consistency check, their twins when the logs hold them); missing ones are dropped from the least-squares placement (never zero-filled) with a
 * warning, and a side that keeps fewer observed instances than dimensions is left out.
 */
import type { ScoreMatrix } from '../logs/matrix.js';
import { findingFactory, type Finding } from '../kernel/findings.js';
import { paceFindings } from './findings.js';
import { embedPartial, type LinearEmbedding } from './embedding/embed.js';
import { predictFromEmbeddings, type PartFit, type TargetFit } from './pipeline.js';
import type { PaceModelFile, SerializedPart, SerializedTarget } from './model-file/model-file.js';
import { conformalInterval, intervalLevels, targetBounds } from './evaluation/conformal.js';
import { labelNoiseInterval } from './evaluation/coverage.js';
import { betterBaseline, rangeExcursions, type BaselineSkill, type RangeExcursion } from './evaluation/skill.js';
import { formatPValue, skillVerdictWords } from './evaluation/uncertainty.js';
import type { Verdict } from './evaluation/uncertainty.js';
import { loadDense } from './numerics/dense.js';
import { coordinateStandardErrors, itemVariance } from './evaluation/range-noise.js';
import { clipToBounds, monotoneValue } from './predictors/monotone.js';
import { readConsistency, type ConsistencyReading } from './evaluation/proxy-consistency.js';

const make = findingFactory(paceFindings);

/** The fit's cross-validated skill for a target, on the target's own scale. */
export function skillOf(t: SerializedTarget): TargetForecast['skill'] {
  const f = t.displayFactor;
  // Model files written before `models` was recorded cross-validated leave-one-out: folds = models.
  return {
    verdict: t.cv.verdict,
    pValue: t.cv.pValue,
    mae: t.cv.mae * f,
    meanMae: t.cv.meanMae * f,
    maeDifference: t.cv.maeDifference * f,
    interval: [t.cv.interval[0] * f, t.cv.interval[1] * f],
    folds: t.cv.folds,
    models: t.cv.models,
    baselines: t.cv.baselines.map((b) => ({ ...b, mae: b.mae * f })),
  };
}

export interface TargetForecast {
  target: string;
  scale: SerializedTarget['scale'];
  /** Point prediction on the target's own scale (percent for the OpenHands Index). */
  predicted: number;
  /** The 95% prediction interval (the `intervals` entry at 0.95). */
  interval: [number, number] | null;
  /**
   * Prediction intervals at 80% and 95%: conformal from the fit's leave-one-out residuals (model-pool
   * uncertainty, label noise included), widened to the label-noise bootstrap interval; `unbounded`
   * when the training models are too few for that level (the interval is then the valid range).
   */
  intervals: Array<{ level: number; lower: number; upper: number; unbounded: boolean }>;
  /** The fit's cross-validated skill for this target (target scale). */
  skill: { verdict: Verdict; pValue: number; mae: number; meanMae: number; maeDifference: number; interval: [number, number]; folds: number; models: number; baselines: BaselineSkill[] };
  /** Embedding coordinates outside the training models' range: the prediction extrapolates. */
  outOfRange: RangeExcursion[];
  /** Why this prediction cannot be vouched for (empty = it can). */
  concerns: Array<'no-demonstrated-skill' | 'outside-training-range' | 'below-training-range' | 'proxy-inconsistent'>;
  /** The proxy score against the checkpoint's other source items (proxy-consistency.ts); null when the model file has no yardstick. */
  consistency: ConsistencyReading | null;
  local: number | null;
  global: number | null;
  guarded: boolean;
  proxyInstances: number;
  missingInstances: number;
  /** P(checkpoint ≻ model) per training model, from Goal B. */
  winProbabilities: Array<{ model: string; score: number; probability: number }>;
}

/** Observed scores of one model row, by instance key. */
export function checkpointScores(matrix: ScoreMatrix, model: string): Map<string, number> | null {
  const row = matrix.models.findIndex((m) => m.name === model);
  if (row < 0) return null;
  const n = matrix.instances.length;
  const out = new Map<string, number>();
  matrix.instances.forEach((inst, c) => {
    if (matrix.observed[row * n + c]) out.set(inst.key, matrix.values[row * n + c] as number);
  });
  return out;
}

function toEmbedding(p: SerializedPart): LinearEmbedding {
  return {
    cols: Int32Array.from(p.instances.keys()),
    k: p.k,
    basis: Float64Array.from(p.basis.flat()),
    proj: Float64Array.from(p.proj.flat()),
  };
}

function toPart(t: SerializedTarget, side: 'local' | 'global'): PartFit | null {
  const p = t[side];
  if (!p) return null;
  return {
    embedding: toEmbedding(p),
    trainU: Float64Array.from(t.trainingModels.flatMap((m) => m[side] ?? [])),
    goalA: p.goalA,
    goalB: p.goalB,
  };
}

export async function predictPace(model: PaceModelFile, modelName: string, scores: Map<string, number>): Promise<{ forecasts: TargetForecast[]; findings: Finding[] }> {
  await loadDense();
  const findings: Finding[] = [];
  const forecasts: TargetForecast[] = [];
  const taskOf = new Map(model.proxy.map((p) => [p.key, p.task]));
  for (const t of model.targets) {
    const fit: TargetFit = {
      config: t.config,
      effectiveM: t.effectiveM,
      selection: { local: new Int32Array(0), global: new Int32Array(0), union: new Int32Array(0) },
      local: toPart(t, 'local'),
      global: toPart(t, 'global'),
    };
    const keys = new Set([...(t.local?.instances ?? []), ...(t.global?.instances ?? [])]);
    let missing = 0;
    for (const k of keys) if (!scores.has(k)) missing++;
    const sideScores = (p: SerializedPart | null) => (p ? Float64Array.from(p.instances, (k) => scores.get(k) ?? NaN) : null);
    const xLocal = sideScores(t.local);
    const xGlobal = sideScores(t.global);
    const uLocal = xLocal && fit.local ? embedPartial(xLocal, fit.local.embedding) : null;
    const uGlobal = xGlobal && fit.global ? embedPartial(xGlobal, fit.global.embedding) : null;
    if ((t.local && !uLocal && t.global && !uGlobal) || (!uLocal && !uGlobal)) {
      findings.push(make('pace-proxy-too-few-instances', {}, { model: modelName, target: t.target, observed: keys.size - missing, total: keys.size, needed: Math.min(t.local?.k ?? Infinity, t.global?.k ?? Infinity) }));
      continue;
    }
    if (missing) findings.push(make('pace-proxy-missing-instances', {}, { model: modelName, target: t.target, missing, total: keys.size }));
    if (fit.local && !uLocal) fit.local = null;
    if (fit.global && !uGlobal) fit.global = null;
    fit.effectiveM = fit.local && fit.global ? t.effectiveM : fit.local ? 1 : 0;
    const pred = predictFromEmbeddings(fit, uLocal, uGlobal);
    const f = t.displayFactor;
    // The number check uses: the shipped monotone form, clipped to the target's range
    // (monotone.ts); PACE's own point only centres the label-noise replicates on it.
    const fillKeys = [...keys];
    const shipped = monotoneValue(
      { intercept: t.shipped.intercept, weights: t.shipped.weights.map((w) => w.weight), tasks: t.shipped.weights.map((w) => w.task), allTasks: fillKeys.map((k) => taskOf.get(k) ?? '') },
      (i) => scores.get(t.shipped.weights[i]!.key) ?? NaN,
      (i) => scores.get(fillKeys[i]!) ?? NaN,
    );
    const point = shipped === null ? NaN : clipToBounds(shipped, targetBounds(t.scale));
    const replicates = pred.replicates.map((r) => r - pred.value + point);
    const bad = [['predicted', point], ['local', pred.local], ['global', pred.global]].find(([, v]) => v !== null && !Number.isFinite(v as number));
    if (bad || replicates.some((r) => !Number.isFinite(r))) {
      // A NaN or infinite prediction is never reported as a number (and never passes a check).
      findings.push(make('pace-prediction-not-finite', { field: `${t.target}.${bad ? bad[0] : 'replicates'}` }, { model: modelName, target: t.target, value: String(bad ? bad[1] : 'non-finite replicate'), field: bad ? bad[0] : 'replicates' }));
      continue;
    }
    const intervals = intervalLevels.map((level) => {
      const iv = conformalInterval(point, t.cv.absResiduals, level, targetBounds(t.scale), labelNoiseInterval(replicates, level));
      return { level, lower: iv.lower * f, upper: iv.upper * f, unbounded: iv.unbounded };
    });
    const i95 = intervals.find((i) => i.level === 0.95)!;
    let sum = 0;
    let seen = 0;
    for (const k of keys)
      if (scores.has(k)) {
        sum += scores.get(k) as number;
        seen++;
      }
    // How far the coordinates move by the checkpoint's item draws alone (range-noise.ts).
    const variance = itemVariance(seen ? sum / seen : NaN);
    const noise = {
      local: xLocal && fit.local ? coordinateStandardErrors(xLocal, fit.local.embedding, variance) : null,
      global: xGlobal && fit.global ? coordinateStandardErrors(xGlobal, fit.global.embedding, variance) : null,
      proxyMean: seen ? [Math.sqrt(variance / seen)] : null,
    };
    const outOfRange = rangeExcursions(t.range, { local: uLocal, global: uGlobal, proxyMean: seen ? [sum / seen] : null }, noise);
    const skill = skillOf(t);
    const concerns: TargetForecast['concerns'] = [];
    if (skill.verdict !== 'better') {
      concerns.push('no-demonstrated-skill');
      findings.push(make('pace-prediction-unproven', {}, { model: modelName, target: t.target, mae: skill.mae, meanMae: skill.meanMae, words: skillVerdictWords(skill) }));
    }
    const simpler = betterBaseline(skill);
    if (simpler) findings.push(make('pace-simpler-predictor-better', {}, { target: t.target, baseline: simpler.name, title: simpler.title, baselineMae: simpler.mae, mae: skill.mae, p: formatPValue(simpler.pValue) }));
    const below = outOfRange.filter((e) => e.kind === 'below');
    const beyond = outOfRange.filter((e) => e.kind !== 'below');
    if (below.length) {
      concerns.push('below-training-range');
      const e = below[0]!;
      findings.push(make('pace-prediction-below-range', {}, { model: modelName, target: t.target, accuracy: e.value, lowest: e.min }));
    }
    if (beyond.length) {
      concerns.push('outside-training-range');
      const detail = beyond
        .map((e) =>
          e.kind === 'leverage'
            ? `${e.side} embedding: Mahalanobis distance ${e.value.toPrecision(3)} vs ${e.max.toPrecision(3)} for the most unusual training model`
            : `${e.side === 'proxyMean' ? 'mean proxy score' : `${e.side} ${e.coordinate + 1}`}: ${e.value.toPrecision(3)} vs [${e.min.toPrecision(3)}, ${e.max.toPrecision(3)}]${e.standardError ? ` (sampling standard error ${e.standardError.toPrecision(2)})` : ''}`,
        )
        .join('; ');
      findings.push(make('pace-prediction-out-of-range', {}, { model: modelName, target: t.target, count: beyond.length, detail }));
    }
    const consistency = t.consistency ? readConsistency(t.consistency, scores, seen ? sum / seen : NaN, seen) : null;
    if (consistency && !consistency.checked)
      findings.push(make('pace-prediction-consistency-unchecked', {}, { model: modelName, target: t.target, observed: consistency.observed, total: consistency.total }));
    if (consistency?.inconsistent) {
      concerns.push('proxy-inconsistent');
      findings.push(make('pace-prediction-proxy-inconsistent', {}, { model: modelName, target: t.target, proxyMean: consistency.proxyMean!, expected: consistency.expected!, standardError: consistency.standardError!, observed: consistency.observed }));
    }
    forecasts.push({
      target: t.target,
      scale: t.scale,
      predicted: point * f,
      interval: [i95.lower, i95.upper],
      intervals,
      skill,
      outOfRange,
      concerns,
      consistency,
      local: pred.local === null ? null : pred.local * f,
      global: pred.global === null ? null : pred.global * f,
      guarded: pred.guarded,
      proxyInstances: keys.size,
      missingInstances: missing,
      winProbabilities: pred.winProbabilities.map((p, j) => ({ model: t.trainingModels[j]!.name, score: t.trainingModels[j]!.score * f, probability: p })),
    });
  }
  return { forecasts, findings };
}
