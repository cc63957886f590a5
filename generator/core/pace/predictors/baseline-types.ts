import type { Rng } from '../../kernel/rng.js';
import type { FoldBasis } from '../pipeline.js';

/** What every baseline sees in one leave-one-out fold. */
export interface BaselineContext {
  basis: FoldBasis;
  /** Pool row of the held-out model. */
  testRow: number;
  budget: number;
  ncH: number;
  rng: Rng;
  /** Per-target cache shared across folds (e.g. the pool Gram matrix). */
  cache: Map<string, unknown>;
}

export interface Baseline {
  name: string;
  title: string;
  /** Why `fit` never ships it (every baseline is reported by `evaluate` only; the shippable forms are in shipped-family.ts). */
  notShippedBecause: string;
  predict(ctx: BaselineContext): Promise<number> | number;
}
