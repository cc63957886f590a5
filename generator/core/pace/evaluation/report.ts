/** LOOCV report as a Markdown table (the JSON is the LoocvReport itself). */
import type { LoocvReport, ProtocolReport, TargetReport } from './loocv.js';
import { renderUncertainty } from './report-uncertainty.js';
import type { CoverageTally } from './coverage.js';
import { escapeMarkdown } from '../../kernel/markdown.js';
import { baselines, type BaselineName } from '../predictors/baselines.js';

const fmt = (x: number, digits: number) => (Number.isFinite(x) ? x.toFixed(digits) : '—');

export function unitOf(t: TargetReport): string {
  return t.scale === 'raw' ? '' : ' (pp)';
}

/** Which cross-validation produced the table (folds.ts). */
export function protocolLine(p: ProtocolReport): string {
  const outer = p.outer.kind === 'leave-one-out' ? 'leave-one-model-out' : `${p.outer.folds}-fold over models (dealt by a hash of the model name)`;
  const evaluated = p.outer.evaluated < p.outer.folds ? ` (the first ${p.outer.evaluated} folds evaluated)` : '';
  const inner = p.inner.kind === 'leave-one-out' ? 'leave-one-out' : p.inner.kind === 'k-fold' ? `${p.inner.folds}-fold` : `leave-one-out up to ${p.leaveOneOutUpTo} training models, ${p.inner.folds}-fold above`;
  return `Protocol: outer ${outer}${evaluated}; inner selection (nested search, shipped form) ${inner} over each fold's training models.`;
}

/** `covered/folds (pct%)`, empty when the row's coverage was not measured. */
export function coverageCell(c: CoverageTally | undefined): string {
  if (!c || !c.folds) return '';
  return `${c.covered}/${c.folds} (${fmt((100 * c.covered) / c.folds, 0)}%)${c.unbounded ? `, unbounded ×${c.unbounded}` : ''}`;
}

export function renderLoocvTable(report: LoocvReport): string {
  const lines: string[] = [];
  const kFold = report.targets.some((t) => t.protocol?.outer.kind === 'k-fold');
  lines.push(`${kFold ? 'Cross-validation' : 'Leave-one-model-out'} over ${report.pool.models} pool models, ${report.pool.instances} selectable source instances; bootstrap B=${report.options.bootstrap}, global SVD scope: ${report.options.svdScope}.`);
  for (const t of report.targets) {
    const f = t.scale === 'raw' ? 1 : 100;
    lines.push('');
    // Target names come from files anyone can write: no raw HTML or control characters in loocv.md.
    lines.push(`### ${escapeMarkdown(t.target)} — ${t.models.length} models, truth ${fmt(Math.min(...t.truth) * f, 1)}–${fmt(Math.max(...t.truth) * f, 1)}${unitOf(t)}`);
    lines.push('');
    if (t.protocol) lines.push(protocolLine(t.protocol), '');
    // Every row's interval coverage, when measured: one column per nominal level.
    const levels = t.methods.find((m) => m.coverage?.length)?.coverage?.map((c) => c.level) ?? [];
    const covHead = levels.map((l) => ` ${Math.round(100 * l)}% interval covers |`).join('');
    lines.push(`| method | MAE${unitOf(t)} | Spearman | Pearson | R² | pair acc. (scores) | pair acc. (Goal B) |${covHead}`);
    lines.push(`|---|---|---|---|---|---|---|${levels.map(() => '---|').join('')}`);
    for (const m of t.methods)
      lines.push(
        `| ${m.method} | ${fmt(m.metrics.mae * f, 2)} | ${fmt(m.metrics.spearman, 3)} | ${fmt(m.metrics.pearson, 3)} | ${fmt(m.metrics.r2, 3)} | ${fmt(100 * m.pairAccuracy, 1)}% | ${m.goalBPairAccuracy === undefined ? '' : `${fmt(100 * m.goalBPairAccuracy, 1)}%`} |${levels.map((_, i) => ` ${coverageCell(m.coverage?.[i])} |`).join('')}`,
      );
    if (levels.length)
      lines.push('', 'Interval coverage: in each outer fold, every row’s interval is conformal from that row’s own cross-validated residuals over the fold’s training models (never the held-out model), widened to the target-label bootstrap interval for the PACE-based rows; count of held-out models inside it / models evaluated.');
    // A Spearman of −1 next to "mean" reads as a broken baseline unless it is explained.
    if (t.methods.some((m) => m.method === 'mean') && t.protocol?.outer.kind !== 'k-fold')
      lines.push('', 'The mean baseline’s Spearman is −1 by construction: leaving a model out lowers the training mean when that model scores high and raises it when it scores low, so its predictions rank the models exactly backwards. It carries no information about ranking; compare methods by MAE, and the comparison below treats the baseline’s Spearman as 0.');
    lines.push(...renderUncertainty(t, f, unitOf(t)));
    if (t.budgetCurve.length) {
      lines.push('');
      lines.push(`Budget curve (frozen q=${t.frozenConfig.q}, m=${t.frozenConfig.m}, nc_h=${t.frozenConfig.ncH}, nc_d=${t.frozenConfig.ncD}):`);
      lines.push('');
      lines.push(`| C | MAE${unitOf(t)} | Spearman | pair acc. (Goal B) |`);
      lines.push('|---|---|---|---|');
      for (const b of t.budgetCurve) lines.push(`| ${b.budget} | ${fmt(b.metrics.mae * f, 2)} | ${fmt(b.metrics.spearman, 3)} | ${fmt(100 * b.goalBPairAccuracy, 1)}% |`);
    }
    if (t.nestedChoices.length) {
      const counts = new Map<string, number>();
      for (const c of t.nestedChoices) {
        const key = `C=${c.config.budget} q=${c.config.q} m=${c.config.m} nc_h=${c.config.ncH} nc_d=${c.config.ncD}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      lines.push('');
      // Counted per held-out model: under K-fold every model of a fold carries its fold's choice.
      lines.push(`Nested choices: ${[...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, v]) => `${k} ×${v}`).join('; ')}`);
    }
    if (t.shippedChoices?.length) {
      const counts = new Map<string, number>();
      for (const c of t.shippedChoices) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
      lines.push('');
      lines.push(`Shipped choices (the simplest shippable form not significantly worse, per ${t.protocol?.outer.kind === 'k-fold' ? 'held-out model: its fold’s choice' : 'fold'}): ${[...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, v]) => `${k} ×${v}`).join('; ')}`);
    }
    if (t.shippedTunedChoices?.length) {
      const counts = new Map<string, number>();
      for (const c of t.shippedTunedChoices) counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
      lines.push('');
      lines.push(`Shipped-tuned choices (fit --tune: the same rule on the nested search’s settings): ${[...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, v]) => `${k} ×${v}`).join('; ')}`);
    }
    const reported = t.methods.flatMap((m) => (m.method in baselines && m.method !== 'mean' ? [`${m.method} (${baselines[m.method as BaselineName].notShippedBecause})`] : []));
    if (reported.length) lines.push('', `Reported, never shipped: ${reported.join('; ')}.`);
    if (t.guardedPredictions) lines.push(`\nRange guard fired in ${t.guardedPredictions} fold(s) (prediction replaced by the training mean).`);
  }
  return `${lines.join('\n')}\n`;
}
