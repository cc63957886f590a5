/**
 * The nested search: inside one outer fold, the grid configuration with the best inner
 * cross-validated score over the outer fold's training models only. The inner loop is
 * leave-one-out up to 50 training models and K-fold by model-name hash above (folds.ts): the
 * held-out model of the outer fold is not among the models dealt, so it never enters an inner fold.
 */
import { spearman } from '../numerics/rank.js';
import { gridPredictions, type GlobalBasis, type Grid } from '../pipeline.js';
import { innerBasis, type BasisCache } from './basis-cache.js';
import type { PaceConfig, PaceData, PaceOptions, PreparedTarget } from '../types.js';
import { defaultFoldProtocol, foldMembers, planFolds, type FoldProtocol } from './folds.js';

/** What the nested search reads of evaluate's options. */
export interface NestedOptions extends PaceOptions {
  foldProtocol?: FoldProtocol;
}

/** PACE's tuning criterion (cli._abs_score): 100·MAE − Spearman, lower is better. */
export function tuningScore(truth: ArrayLike<number>, predicted: ArrayLike<number>): number {
  let mae = 0;
  for (let i = 0; i < truth.length; i++) mae += Math.abs((truth[i] as number) - (predicted[i] as number));
  mae /= truth.length;
  const rho = spearman(truth, predicted);
  return 100 * mae - (Number.isFinite(rho) ? rho : 0);
}

/** One inner fold's predictions of every grid configuration for one model. */
interface InnerColumn {
  configs: PaceConfig[];
  values: Float64Array;
}

/**
 * Inner folds shared between outer folds. Outer fold k's inner fold that leaves out j trains on
 * every model but k and j — the same models as outer fold j's inner fold that leaves out k. The
 * first of the two predicts both held-out models from that one fit (gridPredictions predicts
 * each row on its own, so the values are the ones a separate fit gives) and keeps the other's
 * column until outer fold j takes it. Enabled when every kept column fits in `maxBytes`, and
 * only when both loops are leave-one-out (K-fold folds do not pair up).
 */
export class InnerFoldShare {
  private readonly held = new Map<string, Float64Array>();
  private configs: PaceConfig[] | null = null;
  outer = -1;
  constructor(private readonly folds: number) {}

  static enabled(folds: number, configs: number, maxBytes = 512 * 2 ** 20): boolean {
    return ((folds * (folds - 1)) / 2) * configs * 8 <= maxBytes;
  }

  /** Whether outer fold `other` is still to run (and will want the column for this outer model). */
  wants(other: number): boolean {
    return other > this.outer && other < this.folds;
  }

  give(other: number, column: InnerColumn): void {
    // The grid's configurations come in the same order from every fit: keep one list of them.
    this.configs ??= column.configs;
    this.held.set(`${this.outer}/${other}`, column.values);
  }

  take(other: number): InnerColumn | undefined {
    const key = `${other}/${this.outer}`;
    const values = this.held.get(key);
    if (!values) return undefined;
    this.held.delete(key);
    return { configs: this.configs!, values };
  }
}

export function nestedChoice<O extends NestedOptions>(data: PaceData, target: PreparedTarget, trainIdx: Int32Array, options: O, grid: Grid, shared: GlobalBasis | null): PaceConfig {
  return nestedSearch(data, target, trainIdx, options, grid, shared).config;
}

/**
 * The nested search on the training models: the configuration with the best inner cross-validated
 * score (leave-one-out, or K-fold above `leaveOneOutUpTo` training models), and that configuration's inner residuals (y − ŷ per training model). The residuals size
 * the nested row's conformal interval; they come from the same inner folds that chose the
 * configuration, so they are slightly optimistic (a third level of cross-validation would fix
 * that at 480× the cost).
 */
export function nestedSearch<O extends NestedOptions>(data: PaceData, target: PreparedTarget, trainIdx: Int32Array, options: O, grid: Grid, shared: GlobalBasis | null, pairs?: InnerFoldShare, bases?: BasisCache): { config: PaceConfig; residuals: Float64Array } {
  let sums: Float64Array[] | null = null;
  let configs: PaceConfig[] = [];
  const truth = Float64Array.from(trainIdx, (i) => target.y[i] as number);
  const record = (column: InnerColumn, t: number) => {
    if (!sums) {
      sums = column.configs.map(() => new Float64Array(trainIdx.length));
      configs = column.configs;
    }
    column.values.forEach((v, c) => ((sums as Float64Array[])[c]![t] = v));
  };
  const plan = planFolds(Array.from(trainIdx, (i) => data.models[target.rows[i] as number] as string), 'inner', options.foldProtocol ?? defaultFoldProtocol);
  if (plan.kind === 'k-fold') {
    // One fit per inner fold predicts all of its held-out models (gridPredictions predicts each row on its own).
    const inFold = new Uint8Array(trainIdx.length);
    for (const held of foldMembers(plan)) {
      inFold.fill(0);
      for (const t of held) inFold[t] = 1;
      const innerTrain = Int32Array.from(trainIdx.filter((_, s) => !inFold[s]));
      const basis = innerBasis(bases, data, target, innerTrain, options, shared);
      const out = gridPredictions(basis, Int32Array.from(held, (t) => target.rows[trainIdx[t] as number] as number), grid);
      held.forEach((t, j) => record({ configs: out.map((p) => p.config), values: Float64Array.from(out, (p) => p.predictions[j] as number) }, t));
    }
  } else
    trainIdx.forEach((inner, t) => {
      let column = pairs?.take(inner);
      if (!column) {
        const innerTrain = Int32Array.from(trainIdx.filter((_, s) => s !== t));
        const basis = innerBasis(bases, data, target, innerTrain, options, shared);
        // The outer fold of `inner` fits on these same models in its own inner fold of this outer
        // model: predict it now as well, once, and hand the column over.
        const later = pairs?.wants(inner) ?? false;
        const both = gridPredictions(basis, later ? Int32Array.of(target.rows[inner] as number, target.rows[pairs!.outer] as number) : Int32Array.of(target.rows[inner] as number), grid);
        column = { configs: both.map((p) => p.config), values: Float64Array.from(both, (p) => p.predictions[0] as number) };
        if (later) pairs!.give(inner, { configs: column.configs, values: Float64Array.from(both, (p) => p.predictions[1] as number) });
      }
      record(column, t);
    });
  let best = 0;
  let bestScore = Infinity;
  (sums as unknown as Float64Array[]).forEach((pred, c) => {
    const s = tuningScore(truth, pred);
    if (s < bestScore - 1e-12) {
      bestScore = s;
      best = c;
    }
  });
  const chosen = (sums as unknown as Float64Array[])[best] as Float64Array;
  return { config: configs[best] as PaceConfig, residuals: Float64Array.from(chosen, (p, t) => (truth[t] as number) - p) };
}

