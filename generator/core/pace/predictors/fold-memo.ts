/**
 * One fit per fold for baselines whose fit does not depend on the held-out model. Under
 * leave-one-out a fold predicts one model; a K-fold fold predicts many from the same training
 * models, and refitting lasso on every instance once per held-out model would cost the fold
 * K-fold was chosen to save. Keyed by the fold's basis object, so a fold's fits are dropped
 * with it and no two folds can share one.
 */
import type { FoldBasis } from '../pipeline.js';

const fits = new WeakMap<FoldBasis, Map<string, unknown>>();

export function perFold<T>(basis: FoldBasis, key: string, make: () => T): T {
  let held = fits.get(basis);
  if (!held) fits.set(basis, (held = new Map()));
  if (!held.has(key)) held.set(key, make());
  return held.get(key) as T;
}
