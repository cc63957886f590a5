/**
 * How models are split into cross-validation folds, for `fit`'s own cross-validation and for
 * every loop of `evaluate` (outer folds, the nested search's inner folds, the `shipped` row's
 * per-fold selection). Up to `leaveOneOutUpTo` models a loop is leave-one-out, PACE's own
 * protocol on its 13–26 models. Above it a loop is K-fold: leave-one-out inside leave-one-out
 * needs one fit per pair of models (124,750 at 500 models), and K folds give the selection and
 * the residuals behind the intervals what they need at K fits per loop.
 *
 * K-fold deals each model by a hash of its name (and of the loop's purpose), not by its
 * position or a shuffle: adding or removing a model never moves any other model to another fold,
 * so fold ids stay stable as a pool grows and a rerun on a pool with one more model is
 * comparable fold by fold. The folds are not exactly balanced (at 51 models some fold can even
 * be empty, and is skipped); the hash spreads names evenly in expectation.
 */
import { hashSeed } from '../../kernel/rng.js';

export interface FoldProtocol {
  /** Loops over this many models or fewer are leave-one-out. */
  leaveOneOutUpTo: number;
  /** Folds of a K-fold loop. */
  folds: number;
}

export const defaultFoldProtocol: FoldProtocol = { leaveOneOutUpTo: 50, folds: 10 };

/** What a loop became: leave-one-out (`folds` = models) or K-fold. */
export interface FoldPlan {
  kind: 'leave-one-out' | 'k-fold';
  /** Number of fold ids (K for K-fold; some may hold no model). */
  folds: number;
  /** Fold id of each model, in the order given. */
  foldOf: Int32Array;
}

/** Salts that keep the outer and inner dealings independent of each other. */
export type FoldPurpose = 'outer' | 'inner';

/** A 32-bit hash of a model name for one purpose: FNV-1a, then murmur3's finaliser so `mod K` uses every bit. */
export function nameHash(name: string, purpose: FoldPurpose): number {
  let h = hashSeed(`aptpace-folds/${purpose}/${name}`);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** K-fold dealing of `names` by name hash, whatever their number. */
export function hashFolds(names: readonly string[], purpose: FoldPurpose, folds: number): Int32Array {
  return Int32Array.from(names, (name) => nameHash(name, purpose) % folds);
}

/**
 * The folds of one loop over `names`: leave-one-out up to `protocol.leaveOneOutUpTo` models,
 * K-fold by name hash above. `force` overrides the size rule (evaluate's `--outer-folds`).
 */
export function planFolds(names: readonly string[], purpose: FoldPurpose, protocol: FoldProtocol = defaultFoldProtocol, force?: 'leave-one-out' | number): FoldPlan {
  const n = names.length;
  const leaveOneOut = force === 'leave-one-out' || (force === undefined && n <= protocol.leaveOneOutUpTo);
  if (leaveOneOut) return { kind: 'leave-one-out', folds: n, foldOf: Int32Array.from({ length: n }, (_, i) => i) };
  const folds = typeof force === 'number' ? force : protocol.folds;
  return { kind: 'k-fold', folds, foldOf: hashFolds(names, purpose, folds) };
}

/** Positions (into the dealt list) of the models in each fold, empty folds left out, fold order kept. */
export function foldMembers(plan: FoldPlan): number[][] {
  const members: number[][] = Array.from({ length: plan.folds }, () => []);
  plan.foldOf.forEach((f, i) => members[f]!.push(i));
  return members.filter((m) => m.length > 0);
}
