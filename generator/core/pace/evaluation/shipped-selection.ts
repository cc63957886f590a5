/**
 * Which shippable form `fit` writes: the simplest one (registry order, shipped-family.ts) whose
 * cross-validated absolute errors are not significantly larger than those of the form with the
 * lowest cross-validated MAE. With 10–20 models the gaps between forms are rarely significant,
 * and picking the lowest MAE among several forms on the same folds would reward noise; falling
 * back to the simpler form costs nothing that the test can see. The sign-flip test is seed-free,
 * so the choice is too. Below `minimumModelsForSkill` models no gap can be told apart and the
 * simplest form ships.
 */
import { shippedKinds, type ShippedKind } from '../predictors/shipped-family.js';
import { minimumModelsForSkill, signFlipTests } from './sign-flip.js';
import { verdictAlpha } from './uncertainty.js';

export interface ShippedChoice {
  kind: ShippedKind;
  /** The form with the lowest cross-validated MAE (ties: the simpler one). */
  lowestMae: ShippedKind;
  /** Per form: cross-validated MAE and the two-sided sign-flip p of its errors against the lowest-MAE form's. */
  forms: Record<ShippedKind, { mae: number; pVersusLowest: number }>;
}

export function chooseShippedKind(truth: ArrayLike<number>, byKind: Record<ShippedKind, ArrayLike<number>>): ShippedChoice {
  const absErrors = (pred: ArrayLike<number>) => Float64Array.from(truth, (y, i) => Math.abs(y - (pred[i] as number)));
  const errors = Object.fromEntries(shippedKinds.map((k) => [k, absErrors(byKind[k])])) as Record<ShippedKind, Float64Array>;
  const mae = (k: ShippedKind) => errors[k].reduce((a, b) => a + b, 0) / Math.max(1, truth.length);
  const lowestMae = shippedKinds.reduce((best, k) => (mae(k) < mae(best) - 1e-12 ? k : best), shippedKinds[0] as ShippedKind);
  const others = shippedKinds.filter((k) => k !== lowestMae);
  const tests = signFlipTests(others.map((k) => errors[k].map((e, i) => e - (errors[lowestMae][i] as number))));
  const pOf = new Map(others.map((k, i) => [k, tests[i]!.pTwoSided]));
  const forms = Object.fromEntries(shippedKinds.map((k) => [k, { mae: mae(k), pVersusLowest: pOf.get(k) ?? 1 }])) as ShippedChoice['forms'];
  // Below the size where the test has any power, no gap can be told apart: the simplest form ships.
  const tellable = truth.length >= minimumModelsForSkill;
  const kind = shippedKinds.find((k) => !tellable || forms[k].pVersusLowest >= verdictAlpha) ?? lowestMae;
  return { kind, lowestMae, forms };
}
