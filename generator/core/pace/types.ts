import type { InstanceRef, ScoreMatrix } from '../logs/matrix.js';
import type { MatrixView } from './numerics/kernels.js';

/** One point of PACE's hyper-parameter space (names follow PACE's config.py). */
export interface PaceConfig {
  /** Strict budget C: number of distinct source instances selected. */
  budget: number;
  /** Share of the budget given to local (|ρ|) selection; the rest goes to global (leverage·|ρ|). */
  q: number;
  /** Mixing weight of the local embedding's prediction: ŷ = m·ŷ_H + (1−m)·ŷ_D. */
  m: number;
  /** Local (H) embedding dimensions. */
  ncH: number;
  /** Global (D-pt) embedding dimensions, also the number of factors in the leverage score. */
  ncD: number;
}

export interface PaceOptions {
  /** Bootstrap replicates over target instances (PACE: 300). 0 disables the bootstrap. */
  bootstrap: number;
  /** L2 penalty of the Bradley–Terry logistic (PACE: α = 0.1 on the mean loss). */
  alpha: number;
  seed: string;
  /**
   * Scope of the global SVD. `fold` (default) recomputes it from training models only, which is
   * what a new checkpoint faces in deployment; `all` is PACE's transductive choice (the held-out
   * model's source row shapes V).
   */
  svdScope: 'fold' | 'all';
}

export const defaultOptions: PaceOptions = { bootstrap: 300, alpha: 0.1, seed: '42', svdScope: 'fold' };

/** Settings used when no frozen configuration is given for a target. */
export const fallbackConfig: PaceConfig = { budget: 100, q: 0.5, m: 0.5, ncH: 3, ncD: 3 };

/** A target as PACE consumes it: fractions in [0,1] for the pool models, plus the bootstrap. */
export interface PreparedTarget {
  name: string;
  scale: 'fraction' | 'percent' | 'raw';
  /** Multiply an internal value by this to get the source's scale (100 for percent). */
  displayFactor: number;
  /** Pool row indices (into PaceData.models) that have this target, ascending. */
  rows: Int32Array;
  /** Target value per entry of `rows`. */
  y: Float64Array;
  /** rows.length × B, row-major; null when B = 0 or no per-instance results. */
  yBoot: Float64Array | null;
  bootstrap: number;
  /** Number of target instances the bootstrap resamples. */
  instanceCount: number;
}

export interface PaceData {
  matrix: ScoreMatrix;
  /** Pool model names, in view row order (sorted). */
  models: string[];
  /** Rows = pool models, cols = selectable instances (complete over the pool, not constant). */
  view: MatrixView;
  /** InstanceRef per view column. */
  instances: InstanceRef[];
  targets: PreparedTarget[];
  /**
   * Matrix columns left out of the view only because a few pool models miss them, with those
   * models' pool rows. A cross-validation fold whose training models all have such a column
   * selects from it, as a fit on those models alone would (fold-view.ts).
   */
  incomplete?: Array<{ col: number; missing: Int32Array }>;
}
