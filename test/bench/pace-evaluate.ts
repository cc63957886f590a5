/**
 * `evaluate` as the CLI runs it, with every candidate: the shippable forms and the `shipped` row
 * (each fold's own cross-validation, coverage on), PACE frozen and nested (default grid), every
 * baseline and the budget curve. `folds: 'all'` times the whole leave-one-out; otherwise the
 * first `folds` outer folds are timed without the nested search, plus `innerFolds` folds of the
 * nested search's inner leave-one-out (the same calls `nestedSearch` makes), and the whole run
 * is projected from them: setup + fold 1 + (models − 1) × the last fold, plus one inner fold per
 * inner training set (models × (models − 1) / 2 when the outer folds share them, loocv.ts).
 */
import { InnerFoldShare, runLoocv, type LoocvOptions } from '../../generator/core/pace/evaluation/loocv.js';
import { baselineOrder } from '../../generator/core/pace/predictors/baselines.js';
import { defaultGrid } from '../../generator/core/pace/settings/config.js';
import { computeGlobalBasis, gridPredictions, gridSize, prepareFold } from '../../generator/core/pace/pipeline.js';
import type { PaceConfig, PaceData, PaceOptions } from '../../generator/core/pace/types.js';

export interface EvaluatePlan {
  folds: number | 'all';
  innerFolds: number;
}

export async function timeEvaluate(data: PaceData, options: PaceOptions, config: PaceConfig, plan: EvaluatePlan): Promise<Record<string, number | string>> {
  const target = data.targets[0]!;
  const n = target.rows.length;
  const marks: number[] = [];
  const start = performance.now();
  const all = plan.folds === 'all';
  const loocvOptions: LoocvOptions = {
    ...options,
    frozen: { [target.name]: config },
    nested: all ? defaultGrid : null,
    baselines: [...baselineOrder],
    budgetCurve: [25, 50, 100, 200, 400],
    coverage: true,
    ...(all ? {} : { maxFolds: plan.folds as number }),
    onProgress: () => marks.push(performance.now()),
  };
  const report = await runLoocv(data, loocvOptions);
  const seconds = (performance.now() - start) / 1000;
  const rows = report.targets[0]!.methods.length;
  if (all) return { evaluate_rows: rows, evaluate_s: seconds, evaluate_measured: 'all folds' };
  // marks: one at the start of each fold, one at the end.
  const setup = ((marks[0] as number) - start) / 1000;
  const foldSeconds = marks.slice(1).map((t, i) => (t - (marks[i] as number)) / 1000);
  const first = foldSeconds[0] as number;
  const steady = foldSeconds[foldSeconds.length - 1] as number;
  // The nested search's inner folds: leave one more model out of an outer fold's training models.
  const outerTrain = Int32Array.from({ length: n - 1 }, (_, i) => i + 1);
  const shared = options.svdScope === 'all' ? computeGlobalBasis(data, Int32Array.from(data.models.keys()), `${options.seed}/svd/all`) : null;
  const innerStart = performance.now();
  for (let t = 0; t < plan.innerFolds; t++) {
    const innerTrain = Int32Array.from(outerTrain.filter((_, s) => s !== t));
    const basis = prepareFold(data, target, innerTrain, options, shared);
    gridPredictions(basis, Int32Array.of(target.rows[outerTrain[t] as number] as number), defaultGrid);
  }
  const inner = (performance.now() - innerStart) / 1000 / plan.innerFolds;
  const withoutNested = setup + first + (n - 1) * steady;
  // Each inner training set (all but two models) is fitted once when the outer folds share them.
  const innerFits = InnerFoldShare.enabled(n, gridSize(defaultGrid)) ? (n * (n - 1)) / 2 : n * (n - 1);
  return {
    evaluate_rows: rows + 1,
    evaluate_measured: `${plan.folds} folds without nested + ${plan.innerFolds} nested inner folds`,
    evaluate_setup_s: setup,
    evaluate_first_fold_s: first,
    evaluate_fold_s: steady,
    nested_inner_fold_s: inner,
    evaluate_without_nested_projected_s: withoutNested,
    nested_inner_fits: innerFits,
    nested_projected_s: innerFits * inner,
    evaluate_projected_s: withoutNested + innerFits * inner,
  };
}
