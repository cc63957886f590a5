/**
 * The report of one `aptpace check`: a ReportPage built from the result (and the model file and
 * history for the plots), rendered as self-contained HTML with inline SVG and as Markdown for a
 * CI step summary or PR comment. Pure: same inputs, same bytes.
 */
import type { Finding } from '../kernel/findings.js';
import { renderFinding } from '../kernel/render.js';
import type { PaceModelFile } from '../pace/model-file/model-file.js';
import type { SkillShare } from '../pace/selection/skill-map.js';
import { escapeMarkdown, renderReportMarkdown, type ReportPage, type ReportSection } from './html.js';
import { barChartSpec, chartSlug, groupedBarChartSpec, trendChartSpec, type BarRow, type ReferenceBand } from './charts/specs.js';
import { renderPageFiles } from './page-files.js';
import { concernWords, type CheckResult, type CheckTargetResult } from './check-result.js';
import { betterBaseline } from '../pace/evaluation/skill.js';
import { formatPValue } from '../pace/evaluation/uncertainty.js';
import { trendPositions, type HistoryEntry } from './history.js';
import { checkVerdict, formatScore, whatNext, winNote, verdictKind } from './verdict.js';

export { checkVerdict } from './verdict.js';

/** History rows in summary.md (PR comments are capped at 65,536 characters); report.html lists them all. */
const MARKDOWN_HISTORY_ROWS = 20;
/** Missing keys listed per target before "… N more" (result.json always has them all). */
const MISSING_SHOWN = 20;

function formatInterval(t: Pick<CheckTargetResult, 'interval' | 'scale'>): string {
  return t.interval ? `[${formatScore(t.interval[0], t.scale)}, ${formatScore(t.interval[1], t.scale)}]` : '–';
}

export const scaleLabel = (scale: CheckTargetResult['scale']) => (scale === 'percent' ? 'score (%)' : scale === 'fraction' ? 'score (fraction)' : 'score');
/** Upper end every value axis reaches at least: the scale's full range where it has one. */
export const scaleMax = (scale: CheckTargetResult['scale']) => (scale === 'percent' ? 100 : scale === 'fraction' ? 1 : 0);
/** Chart file stems: a section prefix, the target's position (unique) and its name (readable). */
const chartName = (prefix: string, i: number, target: string) => `${prefix}-${i + 1}-${chartSlug(target)}`;

/** The training models' known scores of one target, as reference rules (target scale). */
export function referenceBands(model: PaceModelFile, target: string): ReferenceBand[] {
  const t = model.targets.find((x) => x.target === target);
  return t ? t.trainingModels.map((m) => ({ label: m.name, value: m.score * t.displayFactor })) : [];
}

/** Notices shown per finding code before "… N more" (result.json keeps every finding). */
const NOTICES_PER_CODE = 10;

export function notices(findings: Finding[]): ReportPage["notices"] {
  const rank = (f: Finding) => (f.severity === 'error' ? 0 : f.severity === 'warning' ? 2 : 4) + (/^(pace-|check-)/.test(f.code) ? 0 : 1);
  // Most severe first, and the checkpoint's own problems before those met while reading other rows.
  const shown = findings.filter((f) => f.severity !== 'info' || f.code.startsWith('check-history')).map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  const perCode = new Map<string, number>();
  const out: NonNullable<ReportPage['notices']> = [];
  for (const f of shown) {
    const n = (perCode.get(f.code) ?? 0) + 1;
    perCode.set(f.code, n);
    if (n <= NOTICES_PER_CODE) out.push({ level: f.severity, text: renderFinding(f) });
  }
  for (const [code, n] of [...perCode.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (n > NOTICES_PER_CODE) out.push({ level: shown.find((f) => f.code === code)!.severity, text: `… and ${n - NOTICES_PER_CODE} more ${code} finding(s); result.json lists them all` });
  }
  return out;
}

function formatLevel(t: CheckTargetResult, level: number): string {
  const iv = t.intervals.find((i) => i.level === level);
  if (!iv) return '–';
  return `[${formatScore(iv.lower, t.scale)}, ${formatScore(iv.upper, t.scale)}]${iv.unbounded ? ' (unbounded: too few training models)' : ''}`;
}

/** The fit's cross-validated quality beside each prediction: MAE against the mean predictor's. */
function formatSkill(t: CheckTargetResult): string {
  const s = t.skill;
  if (!s) return '–';
  const d = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;
  const words = s.verdict === 'better' ? 'beats the mean' : s.verdict === 'worse' ? 'worse than the mean' : s.verdict === 'too-few-models' ? `too few models to tell (${s.models})` : 'no demonstrated skill';
  const p = Number.isFinite(s.pValue) ? `, p ${formatPValue(s.pValue)}` : '';
  const simpler = betterBaseline(s);
  return `${s.mae.toFixed(2)} vs ${s.meanMae.toFixed(2)} (Δ ${d(s.maeDifference)} [${d(s.interval[0])}, ${d(s.interval[1])}]${p}): ${words}${simpler ? `; ${simpler.name} errs less (${simpler.mae.toFixed(2)})` : ''}`;
}

function predictionSection(result: CheckResult): ReportSection {
  const rows = result.targets.map((t) => [
    t.target,
    formatScore(t.predicted, t.scale),
    formatLevel(t, 0.8),
    formatInterval(t),
    formatSkill(t),
    t.minScore === null ? null : formatScore(t.minScore, t.scale),
    `${t.missingInstances}/${t.proxyInstances}`,
    t.expectedRank === null ? null : `${t.expectedRank.toFixed(1)} of ${t.winProbabilities.length + 1}`,
    t.status + (t.guarded ? ' (range guard: training mean)' : '') + (t.concerns.length ? ` — ${t.concerns.map((c) => concernWords(c, { skill: t.skill!, outOfRange: t.outOfRange, consistency: t.consistency })).join('; ')}` : ''),
  ]);
  const emphasise = result.targets.flatMap((t, i) => (t.status === 'fail' || t.status === 'no-prediction' || t.status === 'cannot-judge' ? [i] : []));
  const charts = result.targets.flatMap((t, i) => {
    if (t.predicted === null) return [];
    const bars: BarRow[] = [...t.winProbabilities]
      .sort((a, b) => a.score - b.score || (a.model < b.model ? -1 : 1))
      .map((w) => ({ label: w.model, value: w.score }));
    const tone = t.status === 'pass' ? 'pass' : t.status === 'fail' ? 'fail' : 'neutral';
    const mine: BarRow = { label: `${result.model} (predicted)`, value: t.predicted, highlight: true, tone, ...(t.interval ? { low: t.interval[0], high: t.interval[1] } : {}) };
    const at = bars.findIndex((b) => b.value > t.predicted!);
    bars.splice(at < 0 ? bars.length : at, 0, mine);
    return [barChartSpec(chartName('predicted', i, t.target), `${t.target}: ${result.model} among the training models`, bars, { xTitle: scaleLabel(t.scale), maxValue: scaleMax(t.scale), ...(t.minScore !== null ? { threshold: t.minScore, thresholdLabel: 'min score' } : {}) })];
  });
  return {
    heading: 'Predicted agentic scores',
    text: 'Point prediction of each agentic target from the checkpoint’s proxy-instance scores. Intervals are conformal from the fit’s cross-validation residuals (leave-one-out up to 50 models, 10-fold above), so they carry the uncertainty of the model pool and target-label noise; they are widened to the label-noise bootstrap interval. Beside each prediction: the fit’s cross-validated MAE against the mean predictor’s, with the 95% bootstrap-over-models interval of the difference; a target without demonstrated skill, or a checkpoint outside the range of the training models, is not judged (cannot-judge) unless --allow-unproven. Expected rank counts the training models expected to beat the checkpoint (1 = best).',
    charts,
    table: { columns: ['target', 'predicted', '80% interval', '95% interval', 'CV MAE vs mean', 'min score', 'missing proxy', 'expected rank', 'status'], rows, emphasise },
  };
}

function winSection(result: CheckResult): ReportSection | null {
  const predicted = result.targets.filter((t) => t.predicted !== null && t.winProbabilities.length);
  if (!predicted.length) return null;
  const charts = predicted.map((t, i) =>
    barChartSpec(
      chartName('wins', i, t.target),
      `${t.target}: P(${result.model} beats …)`,
      [...t.winProbabilities].sort((a, b) => a.score - b.score || (a.model < b.model ? -1 : 1)).map((w) => ({ label: w.model, value: w.probability })),
      { xTitle: 'win probability', maxValue: 1, threshold: 0.5, thresholdLabel: 'even odds' },
    ),
  );
  const rows = predicted.map((t) => {
    const sorted = [...t.winProbabilities].sort((a, b) => b.score - a.score || (a.model < b.model ? -1 : 1));
    const beats = sorted.filter((w) => w.probability > 0.5);
    const strongest = beats[0];
    return [t.target, `${beats.length} of ${sorted.length}`, strongest ? `${strongest.model} (P = ${strongest.probability.toFixed(2)})` : null, winNote(t, beats.length, sorted.length)];
  });
  return {
    heading: 'Win probabilities against the training models',
    text: 'P(checkpoint beats model) from PACE’s pairwise ranking, models ordered by their true target score. The verdict compares the predicted score with --min-score, not with the training models: a checkpoint can likely beat every training model and still fail a threshold set above them, and for a target that cannot be judged these probabilities come from the same unvouched fit. The last column says how each target’s probabilities square with its verdict.',
    charts,
    table: { columns: ['target', 'likely beats (P > 0.5)', 'strongest model likely beaten', 'with the verdict'], rows },
  };
}

function skillSection(model: PaceModelFile): ReportSection {
  const overall: SkillShare[] = model.skillMap;
  const tasks = overall.map((s) => s.task);
  const charts = [
    groupedBarChartSpec('skill-map', 'Proxy set: share per source benchmark', tasks, [
      { name: 'instance share', values: overall.map((s) => s.instanceShare) },
      { name: 'weight share', values: overall.map((s) => s.weightShare) },
    ], { xTitle: 'share', maxValue: 1 }),
  ];
  const targetNames = model.targets.map((t) => t.target);
  const perTarget = new Map(model.targets.map((t) => [t.target, new Map(t.skillMap.map((s) => [s.task, s]))]));
  const rows = overall.map((s) => [
    s.task,
    s.instances,
    `${(100 * s.instanceShare).toFixed(1)}%`,
    `${(100 * s.weightShare).toFixed(1)}%`,
    ...targetNames.map((name) => {
      const share = perTarget.get(name)?.get(s.task);
      return share ? `${(100 * share.weightShare).toFixed(1)}%` : null;
    }),
  ]);
  return {
    heading: 'Skill map of the proxy set',
    text: `${model.proxy.length} proxy instances across ${tasks.length} source benchmark(s): where the proxy set draws its instances and what share of the predictor’s absolute weight each benchmark carries (overall and per target).`,
    charts,
    table: { columns: ['source benchmark', 'instances', 'instance share', 'weight share', ...targetNames.map((t) => `${t} weight share`)], rows },
  };
}

function missingSection(result: CheckResult): ReportSection | null {
  if (!result.found) return null;
  const affected = result.targets.filter((t) => t.missingInstances > 0);
  if (!affected.length) return null;
  const rows = affected.map((t) => {
    const shown = t.missing.slice(0, MISSING_SHOWN).join(', ');
    const more = t.missing.length > MISSING_SHOWN ? ` … and ${t.missing.length - MISSING_SHOWN} more (all in result.json)` : '';
    return [t.target, `${t.missingInstances}/${t.proxyInstances}`, `${(100 * t.missingFraction).toFixed(1)}%`, t.checks.maxMissing, shown + more];
  });
  return {
    heading: 'Missing proxy instances',
    text: 'The checkpoint has no score for these proxy instances. PACE places it by least squares on the observed ones (never zero-filled), so its predictions are less certain than the interval suggests. Run the fit’s proxy-only suite (fit --suite writes proxy-suite/) to cover them.',
    table: { columns: ['target', 'missing', 'share', '--max-missing', 'instances'], rows, emphasise: affected.flatMap((t, i) => (t.checks.maxMissing === 'fail' ? [i] : [])) },
  };
}

function historySection(result: CheckResult, model: PaceModelFile, history: HistoryEntry[], maxRows: number): ReportSection | null {
  if (!history.length) return null;
  const { axis, points } = trendPositions(history);
  const charts = result.targets.flatMap((t, i) => {
    const trend = points.flatMap(({ x, entry }) => {
      const h = entry.targets.find((e) => e.target === t.target);
      if (!h || h.predicted === null) return [];
      return [{ x, value: h.predicted, label: entry.model, highlight: entry.model === result.model, ...(h.interval ? { low: h.interval[0], high: h.interval[1] } : {}) }];
    });
    if (!trend.length) return [];
    return [trendChartSpec(chartName('trend', i, t.target), `${t.target} over checkpoints`, trend, { xTitle: axis === 'step' ? 'training step' : 'checkpoint (history order)', yTitle: `predicted ${scaleLabel(t.scale)}`, maxValue: scaleMax(t.scale), references: referenceBands(model, t.target), highlightMeaning: `${result.model}, the checkpoint of this report`, ...(t.minScore !== null ? { threshold: t.minScore } : {}) })];
  });
  const targetNames = result.targets.map((t) => t.target);
  const scales = new Map(result.targets.map((t) => [t.target, t.scale]));
  // The most recent rows in trend order, and the current checkpoint wherever it falls.
  const kept = points.filter(({ entry }, i) => i >= points.length - maxRows || entry.model === result.model);
  const rows = kept.map(({ entry }) => [
    entry.model,
    entry.step,
    entry.passed ? 'pass' : 'fail',
    ...targetNames.map((name) => {
      const h = entry.targets.find((e) => e.target === name);
      return h && h.predicted !== null ? formatScore(h.predicted, scales.get(name) ?? 'raw') : null;
    }),
    entry.modelFileSha256 === result.modelFile.sha256 ? 'this' : entry.modelFileSha256.slice(0, 12),
  ]);
  return {
    heading: 'Trend over checkpoints',
    text: `${history.length} checkpoint(s) in the history, ordered by ${axis === 'step' ? 'training step' : 'the order they were first checked'}${kept.length < points.length ? `; the table shows the last ${kept.length} (report.html has all)` : ''}. Each chart’s caption says what it draws.`,
    charts,
    table: { columns: ['checkpoint', 'step', 'verdict', ...targetNames, 'model file'], rows, emphasise: kept.flatMap(({ entry }, i) => (entry.model === result.model ? [i] : [])) },
  };
}

export function checkReportPage(result: CheckResult, model: PaceModelFile, history: HistoryEntry[], options: { historyRows?: number } = {}): ReportPage {
  const next: ReportSection = { heading: 'What next', text: NEXT_INTRO[verdictKind(result)], bullets: whatNext(result) };
  const sections = [next, predictionSection(result), winSection(result), missingSection(result), skillSection(model), historySection(result, model, history, options.historyRows ?? Infinity)].filter((s): s is ReportSection => s !== null);
  const footer: Array<[string, string]> = [
    ['checkpoint', result.model + (result.step !== null ? ` (step ${result.step})` : '')],
    ['model file', result.modelFile.path],
    ['model file sha256', result.modelFile.sha256],
    ['training matrix sha256', result.modelFile.matrixSha256],
    ['training targets sha256', result.modelFile.targetsSha256],
    ['inputs', `${result.inputs.kind}: ${result.inputs.paths.join(', ')}${result.inputs.mapping ? ` (mapping ${result.inputs.mapping})` : ''}`],
    ['fitted with', Object.entries(result.modelFile.versions).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k} ${v}`).join(', ')],
  ];
  return { title: `aptpace check: ${result.model}`, verdict: checkVerdict(result), notices: notices(result.findings), sections, footer };
}

const NEXT_INTRO: Record<ReturnType<typeof verdictKind>, string> = {
  pass: 'The checkpoint passed every check applied.',
  'below-threshold': 'A predicted score is below its --min-score.',
  'cannot-judge': 'A prediction was made but cannot be vouched for, so it neither passes nor fails on its number.',
  'missing-data': 'The checkpoint’s proxy-instance scores are missing or too incomplete to predict from.',
  'input-errors': 'Errors while reading the inputs or the history stopped the check.',
};

/** report.html, summary.md and the chart specs (`charts/<name>.vl.json`), relative to the report folder. */
export async function renderCheckReport(result: CheckResult, model: PaceModelFile, history: HistoryEntry[]): Promise<{ html: string; markdown: string; files: Record<string, string> }> {
  const page = checkReportPage(result, model, history);
  const { html, files } = await renderPageFiles(page);
  const markdown = renderReportMarkdown(checkReportPage(result, model, history, { historyRows: MARKDOWN_HISTORY_ROWS }));
  // Escaped, not a code span: a backtick in a path or name would end the span early.
  const facts = page.footer!.map(([k, v]) => `- ${escapeMarkdown(k)}: ${escapeMarkdown(v)}`).join('\n');
  // A blank line first: a text line right after a Markdown table would be read as one more row.
  return { html, files, markdown: `${markdown.trimEnd()}\n\nPlots: report.html beside this file (Vega-Lite specs in charts/).\n\n${facts}\n` };
}
