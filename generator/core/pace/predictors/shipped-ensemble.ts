import type { ShippedPredictor } from './shipped-family.js';
import { formFromWeights } from './shipped-form.js';

/**
 * The plain average of the other shippable forms (before clipping). An average of non-negative
 * linear forms over the same proxy items is again one, so it ships through the same model-file
 * field and the same Python mirror; averaging rather than stacking keeps it free of a second
 * level of fitting on 10–20 models.
 */
export const shippedEnsemble: ShippedPredictor = {
  title: 'average of the accuracy, per-benchmark and weighted forms',
  build: (input, members) => {
    const forms = [members.accuracy, members['benchmark-accuracy'], members.weighted];
    const weights = new Map<number, number>();
    let intercept = 0;
    for (const f of forms) {
      intercept += f.intercept / forms.length;
      f.cols.forEach((c, i) => weights.set(c, (weights.get(c) ?? 0) + (f.weights[i] as number) / forms.length));
    }
    return formFromWeights(input, intercept, weights);
  },
};
