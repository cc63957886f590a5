/**
 * The parts of the LOOCV report that say how much the figures can be trusted: the paired
 * difference of every method to the mean predictor (bootstrap over models), the floors a metric
 * must clear, and the empirical coverage of the prediction intervals.
 */
import type { MethodResult, TargetReport } from './loocv.js';
import { residualsNeeded } from './conformal.js';
import { formatPValue, skillVerdictWords, type MetricDifference, type PairedComparison } from './uncertainty.js';

const fmt = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const signed = (x: number, digits: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}` : '—');

function cell(d: MetricDifference, factor: number, digits: number): string {
  return `${signed(d.difference * factor, digits)} [${signed(d.interval[0] * factor, digits)}, ${signed(d.interval[1] * factor, digits)}]`;
}

export function verdictWords(c: PairedComparison, method: string): string {
  if (!c.adjusted) return `${method} ${skillVerdictWords({ verdict: c.verdict, pValue: c.test.pTwoSided, models: c.models })}`;
  const a = c.adjusted;
  const words = skillVerdictWords({ verdict: a.verdict, models: c.models });
  const p = a.verdict === 'too-few-models' ? '' : ` (sign-flip p ${formatPValue(c.test.pTwoSided)}, Holm-adjusted over ${a.family} methods p ${formatPValue(a.p)})`;
  return `${method} ${words}${p}`;
}

export function renderUncertainty(t: TargetReport, f: number, unit: string): string[] {
  const lines: string[] = [];
  const mean = t.methods.find((m) => m.method === 'mean');
  if (mean) {
    lines.push('');
    lines.push(
      `Floors — the constant mean predictor (${t.protocol?.outer.kind === 'k-fold' ? 'each fold’s training mean' : 'leave-one-out'}): MAE ${fmt(mean.metrics.mae * f, 2)}${unit}, R² ${fmt(mean.metrics.r2, 3)}, pair acc. (scores) ${fmt(100 * mean.pairAccuracy, 1)}%. A method is informative only above these.`,
    );
    for (const m of t.methods) lines.push(...floorWarnings(m, mean));
  }
  if (t.comparisons.length) {
    const c0 = t.comparisons[0]!.vsMean;
    lines.push('');
    lines.push(`Paired difference to the mean predictor (method − mean, ${Math.round(100 * c0.level)}% percentile bootstrap over the ${c0.models} models, B=${c0.bootstrap}; the conclusion's test is corrected for the ${t.comparisons.length} methods compared, Holm):`);
    lines.push('');
    lines.push(`| method | ΔMAE${unit} | Spearman − 0 (a constant has no order) | ΔR² | Δpair acc. (scores, pp) | conclusion |`);
    lines.push('|---|---|---|---|---|---|');
    for (const { method, vsMean: c } of t.comparisons)
      lines.push(`| ${method} | ${cell(c.metrics.mae, f, 2)} | ${cell(c.metrics.spearman, 1, 3)} | ${cell(c.metrics.r2, 1, 3)} | ${cell(c.metrics.pairAccuracy, 100, 1)} | ${verdictWords(c, method)} |`);
  }
  const coverageParts = (tallies: TargetReport['coverage']) =>
    tallies.map((c) => {
      const unbounded = c.unbounded ? `; unbounded in ${c.unbounded} fold(s): ${residualsNeeded(c.level)} training models are needed to bound it` : '';
      return `${Math.round(100 * c.level)}% nominal → ${c.covered}/${c.folds} covered (${fmt((100 * c.covered) / c.folds, 0)}%), mean width ${fmt(c.meanWidth * f, 1)}${unit}${unbounded}`;
    });
  if (t.coverage.length) {
    lines.push('');
    lines.push(`Prediction intervals of the shipped row (in each outer fold, conformal from the training models' own cross-validated residuals of the form they chose, widened to the target-label bootstrap interval), empirical coverage: ${coverageParts(t.coverage).join('; ')}.`);
  }
  if (t.nestedCoverage?.length) {
    lines.push('');
    lines.push(`Prediction intervals of the pace-nested row (conformal from the chosen configuration's inner ${t.protocol?.inner.kind === 'leave-one-out' || !t.protocol ? 'leave-one-out' : 'cross-validated'} residuals, which chose it: slightly optimistic), empirical coverage: ${coverageParts(t.nestedCoverage).join('; ')}.`);
  }
  return lines;
}

function floorWarnings(m: MethodResult, mean: MethodResult): string[] {
  const out: string[] = [];
  if (m.goalBPairAccuracy !== undefined && Number.isFinite(mean.pairAccuracy) && m.goalBPairAccuracy <= mean.pairAccuracy)
    out.push(
      `- ${m.method}: Goal B pair accuracy ${fmt(100 * m.goalBPairAccuracy, 1)}% is not above the ${fmt(100 * mean.pairAccuracy, 1)}% that the constant mean predictor scores on the same pairs (a constant prediction orders every pair whose other model lies on the far side of the mean).`,
    );
  return out;
}
