/**
 * `evaluate` as the CLI runs it, with every candidate: the shippable forms and the `shipped` row
 * (each fold's own cross-validation, coverage on), PACE frozen and nested (default grid), every
 * baseline and the budget curve, under the default protocol (folds.ts: leave-one-out up to 50
 * models, 10 outer folds dealt by model-name hash above, inner loops likewise by the training
 * set's size). `folds: 'all'` times the whole run; otherwise the first `folds` outer folds are
 * timed with everything on, nested search included, and the whole run is projected from them:
 * setup + fold 1 + (outer folds − 1) × the last fold (the folds are of about equal size).
 */
import { runLoocv, type LoocvOptions } from '../../generator/core/pace/evaluation/loocv.js';
import { baselineOrder } from '../../generator/core/pace/predictors/baselines.js';
import { defaultGrid } from '../../generator/core/pace/settings/config.js';
import type { PaceConfig, PaceData, PaceOptions } from '../../generator/core/pace/types.js';

export interface EvaluatePlan {
  folds: number | 'all';
}

export async function timeEvaluate(data: PaceData, options: PaceOptions, config: PaceConfig, plan: EvaluatePlan): Promise<Record<string, number | string>> {
  const target = data.targets[0]!;
  const marks: number[] = [];
  const start = performance.now();
  const all = plan.folds === 'all';
  const loocvOptions: LoocvOptions = {
    ...options,
    frozen: { [target.name]: config },
    nested: defaultGrid,
    baselines: [...baselineOrder],
    budgetCurve: [25, 50, 100, 200, 400],
    coverage: true,
    ...(all ? {} : { maxFolds: plan.folds as number }),
    onProgress: () => marks.push(performance.now()),
  };
  const report = await runLoocv(data, loocvOptions);
  const seconds = (performance.now() - start) / 1000;
  const t = report.targets[0]!;
  const protocol = `outer ${t.protocol.outer.kind} (${t.protocol.outer.folds} folds), inner ${t.protocol.inner.kind}${t.protocol.inner.folds ? ` (${t.protocol.inner.folds} folds)` : ''}`;
  const shippedMae = Object.fromEntries(t.methods.filter((m) => m.method === 'shipped' || m.method.startsWith('pace-')).map((m) => [`evaluate_${m.method}_mae_pp`, 100 * m.metrics.mae]));
  if (all) return { evaluate_rows: t.methods.length, evaluate_s: seconds, evaluate_measured: 'all folds', evaluate_protocol: protocol, ...shippedMae };
  // marks: one at the start of each fold, one at the end.
  const setup = ((marks[0] as number) - start) / 1000;
  const foldSeconds = marks.slice(1).map((m, i) => (m - (marks[i] as number)) / 1000);
  const first = foldSeconds[0] as number;
  const steady = foldSeconds[foldSeconds.length - 1] as number;
  const outer = t.protocol.outer.folds;
  return {
    evaluate_rows: t.methods.length,
    evaluate_protocol: protocol,
    evaluate_measured: `${plan.folds} of ${outer} outer folds, everything on (nested search included)`,
    evaluate_setup_s: setup,
    evaluate_first_fold_s: first,
    evaluate_fold_s: steady,
    evaluate_models_per_fold: t.methods[0]!.predictions.filter((p) => p !== null).length / (plan.folds as number),
    evaluate_projected_s: setup + first + (outer - 1) * steady,
    ...shippedMae,
  };
}
