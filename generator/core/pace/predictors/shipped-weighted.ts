import type { ShippedPredictor } from './shipped-family.js';
import { rescaledForm } from './shipped-form.js';

/**
 * PACE's positive per-item weights (their relative sizes carry what PACE learned about each
 * item), the negative ones dropped, and one non-negative scale refitted on the training models.
 * Dropping the negative weights without recalibrating would inflate the slope: PACE's positive
 * weights are sized to be offset by the negative ones.
 */
export const shippedWeighted: ShippedPredictor = {
  title: 'PACE’s positive per-item weights, rescaled',
  build: (input) => {
    const raw = new Map<number, number>();
    input.linear.cols.forEach((c, i) => {
      const w = input.linear.weights[i] as number;
      if (w > 0) raw.set(c, w);
    });
    return rescaledForm(input, raw);
  },
};
