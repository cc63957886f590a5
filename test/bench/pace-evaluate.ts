/**
 * `evaluate` as the CLI runs it, with every candidate: the shippable forms and the `shipped` row
 * (each fold's own cross-validation, coverage on), PACE frozen and nested (default grid), every
 * baseline and the budget curve, under the default protocol (folds.ts: leave-one-out up to 50
 * models, 10 outer folds dealt by model-name hash above, inner loops likewise by the training
 * set's size). `folds: 'all'` times the whole run; otherwise the first `folds` outer folds are
 * timed with everything on, nested search included, and the whole run is projected from them:
 * setup + fold 1 + (outer folds − 1) × the last fold (the folds are of about equal size) + the
 * summary after the folds (paired comparisons, sign-flip tests), scaled from the measured models
 * to all of them (its cost grows with the number of models, not of folds).
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
  // One mark per progress call: (folds done, time). A fold's end is the first mark with its number.
  const marks: Array<[number, number]> = [];
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
    onProgress: (done: number) => marks.push([done, performance.now()]),
  };
  const report = await runLoocv(data, loocvOptions);
  const seconds = (performance.now() - start) / 1000;
  const t = report.targets[0]!;
  const protocol = `outer ${t.protocol.outer.kind} (${t.protocol.outer.folds} folds), inner ${t.protocol.inner.kind}${t.protocol.inner.folds ? ` (${t.protocol.inner.folds} folds)` : ''}`;
  const shippedMae = Object.fromEntries(t.methods.filter((m) => m.method === 'shipped' || m.method.startsWith('pace-')).map((m) => [`evaluate_${m.method}_mae_pp`, 100 * m.metrics.mae]));
  if (all) return { evaluate_rows: t.methods.length, evaluate_s: seconds, evaluate_measured: 'all folds', evaluate_protocol: protocol, ...shippedMae };
  const first = new Map<number, number>();
  for (const [done, at] of marks) if (!first.has(done)) first.set(done, at);
  const at = (done: number) => first.get(done) as number;
  const measured = plan.folds as number;
  const setup = (at(0) - start) / 1000;
  const foldSeconds = Array.from({ length: measured }, (_, f) => (at(f + 1) - at(f)) / 1000);
  const firstFold = foldSeconds[0] as number;
  const steady = foldSeconds[foldSeconds.length - 1] as number;
  const outer = t.protocol.outer.folds;
  const measuredModels = t.methods[0]!.predictions.filter((p) => p !== null).length;
  const summary = (marks[marks.length - 1]![1] - at(measured)) / 1000;
  const summaryAll = (summary * t.models.length) / measuredModels;
  return {
    evaluate_rows: t.methods.length,
    evaluate_protocol: protocol,
    evaluate_measured: `${plan.folds} of ${outer} outer folds, everything on (nested search included)`,
    evaluate_setup_s: setup,
    evaluate_first_fold_s: firstFold,
    evaluate_fold_s: steady,
    evaluate_summary_s: summary,
    evaluate_summary_all_models_s: summaryAll,
    evaluate_models_per_fold: measuredModels / measured,
    evaluate_projected_s: setup + firstFold + (outer - 1) * steady + summaryAll,
    ...shippedMae,
  };
}
