/**
 * Inner-fold bases shared within one outer fold. The nested search and the `shipped` row's
 * cross-validation deal the same training models into the same inner folds (folds.ts, purpose
 * `inner`), and when the fold view adds no column both prepare the very same basis for each
 * inner fold: the second one takes the first's instead of recomputing relevance and bootstrap
 * over every instance. A basis is a pure function of these inputs, so sharing it changes no
 * number. Dropped with the outer fold.
 */
import { prepareFold, type FoldBasis, type GlobalBasis } from '../pipeline.js';
import type { PaceData, PaceOptions, PreparedTarget } from '../types.js';

export class BasisCache {
  private readonly held = new Map<string, { data: PaceData; target: PreparedTarget; shared: GlobalBasis | null; basis: FoldBasis }>();

  prepare(data: PaceData, target: PreparedTarget, trainIdx: Int32Array, options: PaceOptions, shared: GlobalBasis | null): FoldBasis {
    const key = trainIdx.join(',');
    const hit = this.held.get(key);
    if (hit && hit.data === data && hit.target === target && hit.shared === shared) return hit.basis;
    const basis = prepareFold(data, target, trainIdx, options, shared);
    this.held.set(key, { data, target, shared, basis });
    return basis;
  }
}

/** `prepareFold` through `cache` when there is one. */
export function innerBasis(cache: BasisCache | undefined, data: PaceData, target: PreparedTarget, trainIdx: Int32Array, options: PaceOptions, shared: GlobalBasis | null, relevance?: Float64Array): FoldBasis {
  return cache ? cache.prepare(data, target, trainIdx, options, shared) : prepareFold(data, target, trainIdx, options, shared, false, relevance);
}
