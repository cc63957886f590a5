/**
 * `predict`: place a new checkpoint with a fitted model file. Only the proxy instances are
 * read; missing ones are dropped from the least-squares placement (never zero-filled) with a
 * warning, and a side that keeps fewer observed instances than dimensions is left out.
 */
import type { ScoreMatrix } from '../logs/matrix.js';
import { findingFactory, type Finding } from '../kernel/findings.js';
import { paceFindings } from './findings.js';
import { embedPartial, type LinearEmbedding } from './embed.js';
import { predictFromEmbeddings, type PartFit, type TargetFit } from './pipeline.js';
import type { PaceModelFile, SerializedPart, SerializedTarget } from './model-file.js';
import { loadDense } from './dense.js';

const make = findingFactory(paceFindings);

export interface TargetForecast {
  target: string;
  scale: SerializedTarget['scale'];
  /** Point prediction on the target's own scale (percent for the OpenHands Index). */
  predicted: number;
  /** 95% bootstrap interval over target-instance resamples (label noise only); null without bootstrap. */
  interval: [number, number] | null;
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

function percentile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (pos - lo);
}

export async function predictPace(model: PaceModelFile, modelName: string, scores: Map<string, number>): Promise<{ forecasts: TargetForecast[]; findings: Finding[] }> {
  await loadDense();
  const findings: Finding[] = [];
  const forecasts: TargetForecast[] = [];
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
    const place = (p: SerializedPart | null, part: PartFit | null) => {
      if (!p || !part) return null;
      const x = Float64Array.from(p.instances, (k) => scores.get(k) ?? NaN);
      return embedPartial(x, part.embedding);
    };
    const uLocal = place(t.local, fit.local);
    const uGlobal = place(t.global, fit.global);
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
    const reps = [...pred.replicates].sort((a, b) => a - b);
    forecasts.push({
      target: t.target,
      scale: t.scale,
      predicted: pred.value * f,
      interval: reps.length > 1 ? [percentile(reps, 0.025) * f, percentile(reps, 0.975) * f] : null,
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
