import type { Baseline } from './baseline-types.js';
import { viewCols } from '../numerics/kernels.js';
import { embedViewRow, localEmbedding } from '../embedding/embed.js';
import { fitGoalA, predictGoalA } from './goal-a.js';
import { embedViewRows } from '../embedding/embed.js';
import { perFold } from './fold-memo.js';

/**
 * A random subset of the same budget C, pushed through PACE's local embedding and Goal A:
 * isolates what the selection itself is worth.
 */
export const randomSubsetBaseline: Baseline = {
  name: 'random-c',
  notShippedBecause: 'a control that measures what the selection is worth, not a predictor',
  title: 'random C instances + local SVD + Goal A',
  predict: (ctx) => {
    const { basis } = ctx;
    const view = basis.data.view;
    // One draw per fold (the first held-out model's stream): every model of a fold faces the same subset.
    const { emb, fit } = perFold(basis, `random-c/${ctx.budget}/${ctx.ncH}`, () => {
      const cols = Int32Array.from(ctx.rng.sampleIndices(viewCols(view), ctx.budget).sort((a, b) => a - b));
      const emb = localEmbedding(view, basis.trainRows, cols, ctx.ncH);
      return { emb, fit: fitGoalA(embedViewRows(view, basis.trainRows, emb), emb.k, basis.stats) };
    });
    return predictGoalA(fit, embedViewRow(view, ctx.testRow, emb)).value;
  },
};
