/**
 * `fit`: PACE on every model of each target, serialised as a model file. Selection, embeddings,
 * Goal A and Goal B are those of a LOOCV fold with no model held out.
 */
import type { ProgressCallback } from '../kernel/progress.js';
import { createHash } from 'node:crypto';
import type { ScoreMatrix, TargetTable } from '../logs/matrix.js';
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import { stableStringify } from '../kernel/stable-json.js';
import { paceFindings } from './findings.js';
import { prepareData } from './inputs/prepare.js';
import { computeGlobalBasis, fitTarget, prepareFold, type Grid, type PartFit, type TargetFit } from './pipeline.js';
import { nestedSearch } from './evaluation/nested.js';
import { fallbackConfig, type PaceConfig, type PaceData, type PaceOptions, type PreparedTarget } from './types.js';
import { MODEL_FORMAT, MODEL_VERSION, type PaceModelFile, type SerializedPart, type SerializedTarget } from './model-file/model-file.js';
import { skillMap } from './selection/skill-map.js';
import { betterBaseline, crossValidatedSkill, embeddingRange, proxyMeans, type CrossValidatedSkill } from './evaluation/skill.js';
import { proxyConsistency } from './evaluation/proxy-consistency.js';
import { formatPValue, skillVerdictWords } from './evaluation/uncertainty.js';
import { loadDense } from './numerics/dense.js';
import { startKernelThread } from './numerics/kernel-thread.js';
import { columnLinearForm } from './predictors/monotone.js';
import { buildShippedForms, type ShippedKind } from './predictors/shipped-family.js';

const make = findingFactory(paceFindings);

export interface FitOptions extends PaceOptions {
  configs: Record<string, PaceConfig>;
  /**
   * Tune each target's settings on this grid instead of taking `configs`: the nested search's
   * configuration (evaluation/nested.ts) over the target's models, the one `evaluate`'s
   * `shipped-tuned` row runs in each outer fold. The proxy items, PACE's fit and every shippable
   * form then come from the tuned settings.
   */
  tune?: Grid;
  minModelCoverage?: number;
  /** See PrepareOptions.minCompleteShare. */
  minCompleteShare?: number;
  poolScope?: 'targets' | 'all';
  targets?: string[];
  versions?: Record<string, string>;
}

export function matrixHash(m: ScoreMatrix): string {
  const h = createHash('sha256');
  h.update(stableStringify({ models: m.models.map((x) => x.name), instances: m.instances.map((i) => i.key) }));
  h.update(new Uint8Array(m.values.buffer, m.values.byteOffset, m.values.byteLength));
  h.update(m.observed);
  return h.digest('hex');
}

export function targetsHash(targets: TargetTable[]): string {
  return createHash('sha256')
    .update(stableStringify(targets.map((t) => ({ target: t.target, scale: t.scale, scores: t.scores, perInstance: t.perInstance ?? null }))))
    .digest('hex');
}

function rows(a: Float64Array, m: number, k: number): number[][] {
  return Array.from({ length: m }, (_, i) => Array.from(a.subarray(i * k, (i + 1) * k)));
}

function serializePart(data: PaceData, part: PartFit | null): SerializedPart | null {
  if (!part) return null;
  const e = part.embedding;
  return {
    instances: Array.from(e.cols, (c) => data.instances[c]!.key),
    k: e.k,
    basis: rows(e.basis, e.cols.length, e.k),
    proj: rows(e.proj, e.cols.length, e.k),
    goalA: part.goalA,
    goalB: part.goalB,
  };
}

/** Effective per-instance weights of the unguarded Goal A prediction (it is linear in the scores). */
function linearForm(data: PaceData, fit: TargetFit): SerializedTarget['linear'] {
  const form = columnLinearForm(fit);
  return {
    intercept: form.intercept,
    weights: Array.from(form.cols, (c, i) => ({ key: data.instances[c]!.key, task: data.instances[c]!.task, weight: form.weights[i] as number })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}

/** The monotone, bounded predictor `check` uses (predictors/shipped-family.ts), by instance key. */
function shippedForm(data: PaceData, target: PreparedTarget, fit: TargetFit, kind: ShippedKind): SerializedTarget['shipped'] {
  const form = buildShippedForms(columnLinearForm(fit), data.view, target.rows, target.y, (c) => data.instances[c]!.task)[kind];
  return {
    kind,
    intercept: form.intercept,
    weights: Array.from(form.cols, (c, i) => ({ key: data.instances[c]!.key, task: data.instances[c]!.task, weight: form.weights[i] as number })),
  };
}

function serializeTarget(data: PaceData, target: PreparedTarget, fit: TargetFit, trainU: { local: Float64Array | null; global: Float64Array | null }, cv: CrossValidatedSkill, means: Float64Array): SerializedTarget {
  const linear = linearForm(data, fit);
  return {
    target: target.name,
    scale: target.scale,
    displayFactor: target.displayFactor,
    config: fit.config,
    effectiveM: fit.effectiveM,
    bootstrap: target.bootstrap,
    targetInstances: target.instanceCount,
    trainingModels: Array.from(target.rows, (r, i) => ({
      name: data.models[r] as string,
      score: target.y[i] as number,
      local: trainU.local && fit.local ? Array.from(trainU.local.subarray(i * fit.local.embedding.k, (i + 1) * fit.local.embedding.k)) : null,
      global: trainU.global && fit.global ? Array.from(trainU.global.subarray(i * fit.global.embedding.k, (i + 1) * fit.global.embedding.k)) : null,
    })),
    local: serializePart(data, fit.local),
    global: serializePart(data, fit.global),
    linear,
    shipped: shippedForm(data, target, fit, cv.shippedKind),
    skillMap: skillMap(linear.weights),
    cv,
    range: embeddingRange(fit, means),
    // Set once every target's proxy items are known (fitPace): the yardstick holds none of them.
    consistency: null,
  };
}

export async function fitPace(matrix: ScoreMatrix, targets: TargetTable[], options: FitOptions, onProgress?: ProgressCallback): Promise<{ model: PaceModelFile | null; data: PaceData | null; findings: Finding[] }> {
  startKernelThread();
  await loadDense();
  const { data, findings } = prepareData(matrix, targets, {
    bootstrap: options.bootstrap,
    seed: options.seed,
    ...(options.minModelCoverage !== undefined ? { minModelCoverage: options.minModelCoverage } : {}),
    ...(options.minCompleteShare !== undefined ? { minCompleteShare: options.minCompleteShare } : {}),
    ...(options.poolScope ? { poolScope: options.poolScope } : {}),
    ...(options.targets ? { targets: options.targets } : {}),
  });
  if (!data || data.targets.length === 0) return { model: null, data, findings };
  const shared = options.svdScope === 'all' ? computeGlobalBasis(data, Int32Array.from(data.models.keys()), `${options.seed}/svd/all`) : null;
  const serialized: SerializedTarget[] = [];
  const proxyCols = new Set<number>();
  // Each target's proxy items and the training models' mean over them, for its yardstick below.
  const proxied: Array<{ union: Int32Array; means: Float64Array }> = [];
  for (const [done, target] of data.targets.entries()) {
    onProgress?.(done, data.targets.length, `targets fitted (${target.name})`);
    const trainIdx = Int32Array.from(target.rows.keys());
    const config = options.tune ? nestedSearch(data, target, trainIdx, options, options.tune, shared).config : (options.configs[target.name] ?? fallbackConfig);
    const basis = prepareFold(data, target, trainIdx, options, shared, true);
    const fit = fitTarget(basis, config, options.alpha);
    if (fit.selection.union.length < config.budget)
      findings.push(make('pace-budget-short', {}, { target: target.name, selected: fit.selection.union.length, budget: config.budget, eligible: basis.localOrder.length }));
    for (const c of fit.selection.union) proxyCols.add(c);
    const cv = await crossValidatedSkill(data, target, config, options, shared);
    const f = target.displayFactor;
    if (cv.verdict !== 'better') findings.push(make('pace-target-no-skill', {}, { target: target.name, mae: cv.mae * f, meanMae: cv.meanMae * f, pValue: cv.pValue, verdict: cv.verdict, words: skillVerdictWords(cv) }));
    const simpler = betterBaseline(cv);
    if (simpler) findings.push(make('pace-simpler-predictor-better', {}, { target: target.name, baseline: simpler.name, title: simpler.title, baselineMae: simpler.mae * f, mae: cv.mae * f, p: formatPValue(simpler.pValue) }));
    const means = proxyMeans(data, target.rows, fit.selection.union);
    proxied.push({ union: fit.selection.union, means });
    serialized.push(serializeTarget(data, target, fit, { local: fit.local?.trainU ?? null, global: fit.global?.trainU ?? null }, cv, means));
  }
  onProgress?.(data.targets.length, data.targets.length, 'targets fitted');
  // Every target's yardstick leaves out every proxy item: a proxy-suite run never holds one, and
  // a checkpoint that has seen the suite has not seen its yardstick there.
  const allProxy = Int32Array.from([...proxyCols].sort((a, b) => a - b));
  data.targets.forEach((target, i) => {
    serialized[i]!.consistency = proxyConsistency(data, target.rows, allProxy, proxied[i]!.union, proxied[i]!.means);
  });
  const proxy = [...proxyCols].map((c) => data.instances[c]!).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const instancesByTask: Record<string, number> = {};
  for (const i of data.instances) instancesByTask[i.task] = (instancesByTask[i.task] ?? 0) + 1;
  const union = new Map<string, { task: string; weight: number }>();
  for (const t of serialized) for (const w of t.linear.weights) union.set(w.key, { task: w.task, weight: (union.get(w.key)?.weight ?? 0) + Math.abs(w.weight) });
  const model: PaceModelFile = {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    versions: { ...(options.versions ?? {}) },
    options: { bootstrap: options.bootstrap, alpha: options.alpha, seed: options.seed, svdScope: options.svdScope },
    data: {
      matrixSha256: matrixHash(matrix),
      targetsSha256: targetsHash(targets),
      poolModels: data.models,
      selectableInstances: data.instances.length,
      instancesByTask: Object.fromEntries(Object.entries(instancesByTask).sort(([a], [b]) => (a < b ? -1 : 1))),
    },
    // The harness's hash of each proxy document (from its logs), so check can tell a changed suite.
    proxy: proxy.map((i) => ({ key: i.key, task: i.task, doc_id: i.doc_id, metric: i.metric, ...(i.doc_hash ? { doc_hash: i.doc_hash } : {}) })),
    targets: serialized,
    skillMap: skillMap([...union.values()]),
  };
  return { model, data, findings };
}
