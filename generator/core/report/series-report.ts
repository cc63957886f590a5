/**
 * The checkpoint-series page: per target a trend chart (the same Vega-Lite builder as the check
 * report's trend) with the reference models as rules, a table of every checkpoint with its flags,
 * and the reference models' known scores.
 */
import type { PaceModelFile } from '../pace/model-file/model-file.js';
import { chartSlug, trendChartSpec } from './charts/specs.js';
import { notices, referenceBands, scaleLabel, scaleMax } from './checkpoint-report.js';
import { escapeMarkdown, renderReportMarkdown, type ReportPage, type ReportSection } from './html.js';
import { renderPageFiles } from './page-files.js';
import { seriesX, type SeriesResult } from './series.js';
import { formatScore } from './verdict.js';

const AXIS_TITLE = { step: 'training step', tokens: 'training tokens', order: 'checkpoint (reference-file / history order)' } as const;

export function seriesReportPage(result: SeriesResult, model: PaceModelFile): ReportPage {
  const xs = seriesX(result);
  const flagged = result.checkpoints.filter((c) => c.targets.some((t) => t.flags.length)).length;
  const charts = model.targets.flatMap((t, i) => {
    const rows = result.checkpoints.flatMap((c, k) => {
      const p = c.targets.find((x) => x.target === t.target);
      if (!p || p.predicted === null) return [];
      return [{ x: xs[k]!, label: c.model, value: p.predicted, highlight: p.flags.length > 0, ...(p.interval ? { low: p.interval[0], high: p.interval[1] } : {}) }];
    });
    if (!rows.length) return [];
    return [trendChartSpec(`series-${i + 1}-${chartSlug(t.target)}`, `${t.target}: predicted along training`, rows, { xTitle: AXIS_TITLE[result.axis], yTitle: `predicted ${scaleLabel(t.scale)}`, maxValue: scaleMax(t.scale), references: referenceBands(model, t.target), highlightMeaning: 'flagged predictions (see the table)' })];
  });
  const targetNames = model.targets.map((t) => t.target);
  const scales = new Map(model.targets.map((t) => [t.target, t.scale]));
  const fmt = (target: string, v: number) => formatScore(v, scales.get(target) ?? 'raw');
  const rows = result.checkpoints.map((c, k) => [
    c.model,
    result.axis === 'order' ? null : xs[k]!,
    ...targetNames.map((name) => {
      const p = c.targets.find((x) => x.target === name);
      if (!p || p.predicted === null) return null;
      return `${fmt(name, p.predicted)}${p.interval ? ` [${fmt(name, p.interval[0])}, ${fmt(name, p.interval[1])}]${p.intervalUnbounded ? ' (unbounded: too few training models)' : ''}` : ''}`;
    }),
    c.source === 'store' ? 'store (predicted now)' : 'history (as checked)',
    c.targets.filter((t) => t.flags.length).map((t) => `${t.target}: ${t.flags.join('; ')}`).join(' · ') || 'none',
  ]);
  const series: ReportSection = {
    heading: 'Predicted agentic scores along training',
    text: `${result.checkpoints.length} checkpoint(s) ordered by ${AXIS_TITLE[result.axis]}, predicted with one model file; intervals are the 95% prediction intervals. A flagged prediction is not vouched for: the fit showed no skill over the mean predictor for that target, or the checkpoint lies outside the training models’ range (the prediction extrapolates), or proxy instances are missing.`,
    charts,
    table: { columns: ['checkpoint', result.axis === 'order' ? 'position' : AXIS_TITLE[result.axis], ...targetNames.map((t) => `${t} [95%]`), 'source', 'flags'], rows, emphasise: result.checkpoints.flatMap((c, k) => (c.targets.some((t) => t.flags.length) ? [k] : [])) },
  };
  const references: ReportSection = {
    heading: 'Reference models (the fit’s training models)',
    text: 'Their known agentic scores, drawn as dotted rules on the charts.',
    table: { columns: ['model', ...targetNames], rows: result.references.map((r) => [r.model, ...targetNames.map((n) => (r.scores[n] === undefined ? null : fmt(n, r.scores[n]!)))]) },
  };
  const errors = result.findings.filter((f) => f.severity === 'error').length;
  return {
    title: 'aptpace report: checkpoint series',
    verdict: {
      ok: errors === 0 && flagged === 0,
      label: 'SERIES',
      text: `${result.checkpoints.length} checkpoint(s); ${flagged ? `${flagged} with flagged predictions (see the flags column)` : 'no prediction flagged'}${errors ? `; ${errors} error(s) while reading (see below)` : ''}`,
    },
    notices: notices(result.findings.map((f) => (f.code.startsWith('report-') && f.severity === 'info' ? { ...f, severity: 'warning' as const } : f))),
    sections: [series, references],
    footer: [
      ['model file', result.modelFile.path],
      ['model file sha256', result.modelFile.sha256],
    ],
  };
}

export async function renderSeriesReport(result: SeriesResult, model: PaceModelFile): Promise<{ html: string; markdown: string; files: Record<string, string> }> {
  const page = seriesReportPage(result, model);
  const { html, files } = await renderPageFiles(page);
  const facts = page.footer!.map(([k, v]) => `- ${escapeMarkdown(k)}: ${escapeMarkdown(v)}`).join('\n');
  return { html, files, markdown: `${renderReportMarkdown(page).trimEnd()}\n\nPlots: report.html beside this file (Vega-Lite specs in charts/).\n\n${facts}\n` };
}
