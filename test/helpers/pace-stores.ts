import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import type { ScoreMatrix } from '../../generator/core/logs/matrix.js';
import type { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

type Synthetic = ReturnType<typeof syntheticPace>;

/** Models `from`..`to` (exclusive) of a matrix, with their cells. */
export function modelRows(matrix: ScoreMatrix, from: number, to: number): ScoreMatrix {
  const S = matrix.instances.length;
  return { ...matrix, models: matrix.models.slice(from, to), values: matrix.values.slice(from * S, to * S), observed: matrix.observed.slice(from * S, to * S) };
}

/**
 * A synthetic population split for fit and check: the first `train` models with their target
 * scores in `trainStore`, the rest (the checkpoints) without any target score in `heldOutStore`.
 */
export async function saveTrainAndHeldOut(syn: Synthetic, train: number, trainStore: string, heldOutStore: string): Promise<void> {
  const heldOut = new Set(syn.matrix.models.slice(train).map((m) => m.name));
  const strip = (t: Synthetic['targets'][number]) => ({
    ...t,
    scores: Object.fromEntries(Object.entries(t.scores).filter(([m]) => !heldOut.has(m))),
    perInstance: Object.fromEntries(Object.entries(t.perInstance ?? {}).filter(([m]) => !heldOut.has(m))),
  });
  await saveStore(nodeVfs, trainStore, { matrix: modelRows(syn.matrix, 0, train), targets: syn.targets.map(strip) });
  await saveStore(nodeVfs, heldOutStore, { matrix: modelRows(syn.matrix, train, syn.matrix.models.length), targets: [] });
}
