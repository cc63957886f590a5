/**
 * The instance universe of a cross-validation fold, fixed from its training models only. The
 * fit's universe holds the columns every pool model has; a column a held-out model misses is
 * still complete over the fold's training models, and a fit on those models alone would select
 * from it. So the fold sees it too, and the held-out model's own missing cells stay its own:
 * it is then predicted from the scores it has, exactly as `check` predicts a new checkpoint
 * (monotone.ts fills an unobserved proxy item from the checkpoint's own task mean).
 */
import type { PaceData } from '../types.js';

/**
 * `data` with the columns added back that only the held-out pool rows miss (every other pool
 * model, with or without this target, has them: a refit without the held-out models would keep
 * them); `data` itself when there are none.
 */
export function foldView(data: PaceData, heldRows: ArrayLike<number>): PaceData {
  const extra = data.incomplete ?? [];
  if (!extra.length) return data;
  const held = new Uint8Array(data.models.length);
  for (let i = 0; i < heldRows.length; i++) held[heldRows[i] as number] = 1;
  const added = extra.filter((e) => e.missing.every((r) => held[r])).map((e) => e.col);
  if (!added.length) return data;
  const { view, matrix } = data;
  const base = view.cols ? Array.from(view.cols) : Array.from({ length: view.stride }, (_, c) => c);
  const cols = Int32Array.from([...base, ...added].sort((a, b) => a - b));
  return {
    ...data,
    view: { ...view, cols },
    instances: Array.from(cols, (c) => matrix.instances[c]!),
  };
}
