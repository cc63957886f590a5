import type { ShippedPredictor } from './shipped-family.js';
import { rescaledForm } from './shipped-form.js';

/**
 * 1-D least squares (slope ≥ 0) on the checkpoint's proxy accuracy: every PACE-selected item
 * weighted alike. The simplest non-constant form: where PACE's weights are noisy (few models,
 * one dominant factor) it predicts as well as anything else.
 */
export const shippedAccuracy: ShippedPredictor = {
  title: 'the proxy accuracy, rescaled (1-D least squares, slope ≥ 0)',
  build: (input) => rescaledForm(input, new Map(Array.from(input.linear.cols, (c) => [c, 1]))),
};
