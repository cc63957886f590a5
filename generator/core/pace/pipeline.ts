/**
 * One fold of PACE for one target: everything computed from the training models only
 * (Spearman relevance, bootstrap pool, optionally the global SVD), then selection → embeddings →
 * Goal A / Goal B for a configuration. `fit` runs it on all models, LOOCV once per held-out
 * model, and the nested search once per inner fold.
 */
import { Rng } from '../kernel/rng.js';
import type { MatrixView } from './numerics/kernels.js';
import { columnSpearman } from './numerics/column-spearman.js';
import { rankLocal } from './selection/select-local.js';
import { rankGlobal } from './selection/select-global.js';
import { mergeStrictBudget, type Selection } from './selection/merge.js';
import { embedViewRow, embedViewRows, globalEmbedding, localEmbedding, type LinearEmbedding } from './embedding/embed.js';
import { fitGoalA, poolStats, predictGoalA, type GoalAFit, type PoolStats } from './predictors/goal-a.js';
import { fitBradleyTerry, margin, pairCounts, sigmoid, type BradleyTerryFit, type PairCounts } from './predictors/bradley-terry.js';
import { topSvd } from './numerics/svd.js';
import { foldGram } from './numerics/shared-gram.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from './types.js';

export interface GlobalBasis {
  /** view cols × k right singular vectors. */
  v: Float64Array;
  k: number;
  singularValues: Float64Array;
  method: 'gram' | 'randomized';
}

export interface FoldBasis {
  data: PaceData;
  target: PreparedTarget;
  /** Indices into target.rows / target.y of the training models. */
  trainIdx: Int32Array;
  /** Pool rows (view rows) of the training models. */
  trainRows: Int32Array;
  yTrain: Float64Array;
  stats: PoolStats;
  pairs: PairCounts | null;
  rho: Float64Array;
  localOrder: Int32Array;
  global: GlobalBasis;
  globalOrders: Map<number, Int32Array>;
}

/** Largest global dimension any configuration may ask for. */
export const maxGlobalDims = 10;

export function subView(view: MatrixView, poolRows: Int32Array): MatrixView {
  return { data: view.data, stride: view.stride, rows: Int32Array.from(poolRows, (r) => view.rows[r] as number), cols: view.cols };
}

/**
 * Global right singular vectors over the view's columns. With `usable` (fold scope), columns
 * outside it — constant over the training models — are left out of the SVD and get zero
 * loadings, so a fold sees exactly what a fit on those models alone would see.
 */
export function computeGlobalBasis(data: PaceData, poolRows: Int32Array, seed: string, usable?: Uint8Array): GlobalBasis {
  const view = subView(data.view, poolRows);
  let cols: Int32Array | null = null;
  if (usable) {
    const keep: number[] = [];
    usable.forEach((u, c) => {
      if (u) keep.push(c);
    });
    if (keep.length < usable.length) cols = Int32Array.from(keep);
  }
  // The Gram route reads the fold's Gram matrix off the pool's (shared-gram.ts) instead of a pass over every column.
  const gram = () => foldGram(data.view, poolRows, cols ? usable! : null);
  const svd = topSvd(cols ? { ...view, cols: Int32Array.from(cols, (c) => (data.view.cols ? (data.view.cols[c] as number) : c)) } : view, maxGlobalDims, { rng: new Rng(seed), gram });
  if (!cols) return { v: svd.v, k: svd.k, singularValues: svd.singularValues, method: svd.method };
  const v = new Float64Array(usableLength(data) * svd.k);
  cols.forEach((c, i) => v.set(svd.v.subarray(i * svd.k, (i + 1) * svd.k), c * svd.k));
  return { v, k: svd.k, singularValues: svd.singularValues, method: svd.method };
}

function usableLength(data: PaceData): number {
  return data.view.cols ? data.view.cols.length : data.view.stride;
}

export function prepareFold(
  data: PaceData,
  target: PreparedTarget,
  trainIdx: Int32Array,
  options: PaceOptions,
  sharedGlobal: GlobalBasis | null,
  withPairs = false,
  /** The training rows' column Spearman when the caller computed it with other folds' (column-spearman-folds.ts). */
  relevance?: Float64Array,
): FoldBasis {
  const trainRows = Int32Array.from(trainIdx, (i) => target.rows[i] as number);
  const yTrain = Float64Array.from(trainIdx, (i) => target.y[i] as number);
  const B = target.bootstrap;
  let yBoot: Float64Array | null = null;
  if (target.yBoot && B > 0) {
    yBoot = new Float64Array(trainIdx.length * B);
    trainIdx.forEach((i, t) => yBoot!.set(target.yBoot!.subarray(i * B, (i + 1) * B), t * B));
  }
  const stats = poolStats(yTrain, yBoot, B);
  const rho = relevance ?? columnSpearman(subView(data.view, trainRows), yTrain);
  const global =
    sharedGlobal ??
    computeGlobalBasis(data, trainRows, `${options.seed}/svd/${target.name}`, Uint8Array.from(rho, (r) => (Number.isFinite(r) ? 1 : 0)));
  return {
    data,
    target,
    trainIdx,
    trainRows,
    yTrain,
    stats,
    pairs: withPairs ? pairCounts(stats.yBoot, trainIdx.length, stats.replicates, new Rng(`${options.seed}/pairs/${target.name}`)) : null,
    rho,
    localOrder: rankLocal(rho),
    global,
    globalOrders: new Map(),
  };
}

export function globalOrder(basis: FoldBasis, ncD: number): Int32Array {
  const key = Math.min(ncD, basis.global.k);
  let order = basis.globalOrders.get(key);
  if (!order) {
    order = rankGlobal(basis.global.v, basis.global.k, key, basis.rho);
    basis.globalOrders.set(key, order);
  }
  return order;
}

export function select(basis: FoldBasis, config: PaceConfig): Selection {
  return mergeStrictBudget(basis.localOrder, globalOrder(basis, config.ncD), config.budget, config.q);
}

export interface PartFit {
  embedding: LinearEmbedding;
  /** Training models' coordinates (n_tr × k). */
  trainU: Float64Array;
  goalA: GoalAFit;
  goalB: BradleyTerryFit | null;
}

export interface TargetFit {
  config: PaceConfig;
  /** m actually applied: 1 or 0 when one side of the selection is empty. */
  effectiveM: number;
  selection: Selection;
  local: PartFit | null;
  global: PartFit | null;
}

function fitPart(basis: FoldBasis, embedding: LinearEmbedding, alpha: number | null): PartFit {
  const trainU = embedViewRows(basis.data.view, basis.trainRows, embedding);
  const goalA = fitGoalA(trainU, embedding.k, basis.stats);
  const goalB = alpha !== null && basis.pairs ? fitBradleyTerry(trainU, embedding.k, basis.pairs, alpha) : null;
  return { embedding, trainU, goalA, goalB };
}

/** Fits one configuration; `alpha` non-null also fits Goal B. */
export function fitTarget(basis: FoldBasis, config: PaceConfig, alpha: number | null): TargetFit {
  const selection = select(basis, config);
  const local = selection.local.length ? fitPart(basis, localEmbedding(basis.data.view, basis.trainRows, selection.local, config.ncH), alpha) : null;
  const global = selection.global.length && basis.global.k > 0 ? fitPart(basis, globalEmbedding(basis.global.v, basis.global.k, selection.global, config.ncD), alpha) : null;
  const effectiveM = local && global ? config.m : local ? 1 : 0;
  return { config, effectiveM, selection, local, global };
}

export interface TargetPrediction {
  value: number;
  local: number | null;
  global: number | null;
  guarded: boolean;
  /** Mixed prediction per bootstrap replicate (empty without bootstrap). */
  replicates: number[];
  /** P(model ≻ training model j) per training model, from Goal B; empty without Goal B. */
  winProbabilities: number[];
  /** Goal B mixed margins per training model. */
  margins: number[];
}

/** Prediction from the model's coordinates in each embedding (null = side absent). */
export function predictFromEmbeddings(fit: TargetFit, uLocal: Float64Array | null, uGlobal: Float64Array | null): TargetPrediction {
  const m = fit.effectiveM;
  const pl = fit.local && uLocal ? predictGoalA(fit.local.goalA, uLocal) : null;
  const pg = fit.global && uGlobal ? predictGoalA(fit.global.goalA, uGlobal) : null;
  const wl = pl ? (pg ? m : 1) : 0;
  const wg = pg ? (pl ? 1 - m : 1) : 0;
  const value = (pl ? wl * pl.value : 0) + (pg ? wg * pg.value : 0);
  const nRep = Math.max(pl?.replicates.length ?? 0, pg?.replicates.length ?? 0);
  const replicates: number[] = [];
  for (let b = 0; b < nRep; b++) replicates.push((pl ? wl * (pl.replicates[b] as number) : 0) + (pg ? wg * (pg.replicates[b] as number) : 0));
  const margins: number[] = [];
  const winProbabilities: number[] = [];
  const bl = fit.local?.goalB && uLocal ? fit.local : null;
  const bg = fit.global?.goalB && uGlobal ? fit.global : null;
  if (bl || bg) {
    const n = (bl ?? bg)!.trainU.length / (bl ?? bg)!.embedding.k || 0;
    const bwl = bl ? (bg ? m : 1) : 0;
    const bwg = bg ? (bl ? 1 - m : 1) : 0;
    for (let j = 0; j < n; j++) {
      let z = 0;
      if (bl) z += bwl * margin(uLocal!, bl.trainU.subarray(j * bl.embedding.k, (j + 1) * bl.embedding.k), bl.goalB!.w);
      if (bg) z += bwg * margin(uGlobal!, bg.trainU.subarray(j * bg.embedding.k, (j + 1) * bg.embedding.k), bg.goalB!.w);
      margins.push(z);
      winProbabilities.push(sigmoid(z));
    }
  }
  return {
    value,
    local: pl?.value ?? null,
    global: pg?.value ?? null,
    guarded: Boolean(pl?.guarded || pg?.guarded),
    replicates,
    winProbabilities,
    margins,
  };
}

/** Prediction for a pool row (fully observed on every selectable instance). */
export function predictPoolRow(basis: FoldBasis, fit: TargetFit, poolRow: number): TargetPrediction {
  const view = basis.data.view;
  return predictFromEmbeddings(
    fit,
    fit.local ? embedViewRow(view, poolRow, fit.local.embedding) : null,
    fit.global ? embedViewRow(view, poolRow, fit.global.embedding) : null,
  );
}

export interface Grid {
  budgets: number[];
  qs: number[];
  ms: number[];
  ncHs: number[];
  ncDs: number[];
}

export function gridSize(g: Grid): number {
  return g.budgets.length * g.qs.length * g.ms.length * g.ncHs.length * g.ncDs.length;
}

/**
 * Goal A predictions of every grid configuration for the given pool rows. Work is shared
 * where the maths allows: selection depends on (C, q, nc_d); the local SVD is done once at the
 * largest nc_h and truncated (its columns do not depend on nc_h); m only mixes.
 */
export function gridPredictions(basis: FoldBasis, testRows: Int32Array, grid: Grid): Array<{ config: PaceConfig; predictions: Float64Array }> {
  const out: Array<{ config: PaceConfig; predictions: Float64Array }> = [];
  const maxNcH = Math.max(...grid.ncHs);
  const view = basis.data.view;
  // Local selections often coincide across nc_d (it only changes the refill): one SVD each.
  const localSvds = new Map<string, LinearEmbedding>();
  for (const budget of grid.budgets)
    for (const q of grid.qs)
      for (const ncD of grid.ncDs) {
        const selection = select(basis, { budget, q, m: 0, ncH: maxNcH, ncD });
        const globalPart = selection.global.length && basis.global.k > 0 ? fitPart(basis, globalEmbedding(basis.global.v, basis.global.k, selection.global, ncD), null) : null;
        const gp = globalPart ? Float64Array.from(testRows, (r) => predictGoalA(globalPart.goalA, embedViewRow(view, r, globalPart.embedding)).value) : null;
        const fullLocal = selection.local.length ? cachedLocal(localSvds, view, basis.trainRows, selection.local, maxNcH) : null;
        for (const ncH of grid.ncHs) {
          let lp: Float64Array | null = null;
          if (fullLocal) {
            const emb = truncate(fullLocal, ncH);
            const part = fitPart(basis, emb, null);
            lp = Float64Array.from(testRows, (r) => predictGoalA(part.goalA, embedViewRow(view, r, emb)).value);
          }
          for (const m of grid.ms) {
            const predictions = new Float64Array(testRows.length);
            for (let t = 0; t < testRows.length; t++) {
              if (lp && gp) predictions[t] = m * (lp[t] as number) + (1 - m) * (gp[t] as number);
              else predictions[t] = lp ? (lp[t] as number) : gp ? (gp[t] as number) : basis.stats.yMean;
            }
            out.push({ config: { budget, q, m, ncH, ncD }, predictions });
          }
        }
      }
  return out;
}

function cachedLocal(cache: Map<string, LinearEmbedding>, view: MatrixView, rows: Int32Array, cols: Int32Array, k: number): LinearEmbedding {
  const key = cols.join(',');
  let e = cache.get(key);
  if (!e) cache.set(key, (e = localEmbedding(view, rows, cols, k)));
  return e;
}

function truncate(e: LinearEmbedding, k: number): LinearEmbedding {
  const kk = Math.min(k, e.k);
  if (kk === e.k) return e;
  const m = e.cols.length;
  const basis = new Float64Array(m * kk);
  const proj = new Float64Array(m * kk);
  for (let s = 0; s < m; s++)
    for (let j = 0; j < kk; j++) {
      basis[s * kk + j] = e.basis[s * e.k + j] as number;
      proj[s * kk + j] = e.proj[s * e.k + j] as number;
    }
  return { cols: e.cols, k: kk, basis, proj };
}
