/**
 * The proxy suite's own prediction: `lm_eval --tasks <proxy suite>` prints every agentic
 * target's PACE prediction and intervals in the harness's results table. Each kept task YAML gains
 * one `class:` line (its documents, prompts and scoring are unchanged, so ingest still joins the
 * run to the full suite's instances). One of them, the reporting task, carries the prediction
 * metrics (computed from every proxy document of the run) and the top group(s) show them, so the
 * table holds them twice rather than once per task; and
 * `pace_model.json` + `aptpace_pace.py` (templates/proxy-suite/aptpace_pace.py, read by the CLI
 * and passed in: core never reads files) sit beside the YAML.
 */
import { parseDocument, isSeq } from 'yaml';
import { stableStringify } from '../kernel/stable-json.js';
import type { PaceModelFile, SerializedPart } from '../pace/model-file/model-file.js';
import { rangeTolerance } from '../pace/evaluation/skill.js';
import { rangeNoiseZ } from '../pace/evaluation/range-noise.js';
import { leverageTolerance } from '../pace/evaluation/leverage.js';

export const PACE_MODULE_FILE = 'aptpace_pace.py';
export const PACE_MODEL_FILE = 'pace_model.json';
import type { ProxySuite } from './proxy-suite.js';

export const PACE_SUITE_FORMAT = 'aptpace-pace-suite-model';
/** Suffixes of the metrics each target adds (aptpace_pace.py FIELDS). */
export const PACE_METRIC_FIELDS = ['', '_lo80', '_hi80', '_lo95', '_hi95', '_vouched', '_missing'] as const;
const CLASS_LINE = 'class: !function aptpace_pace.PaceTask';

/** `pace_<target>` with the target lowercased to [a-z0-9_]; a clash gets a numeric suffix. */
export function paceMetricNames(targets: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  for (const target of targets) {
    const base = `pace_${target.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'target'}`;
    let name = base;
    for (let i = 2; used.has(name) || [...used].some((u) => PACE_METRIC_FIELDS.some((f) => f && u + f === name)); i++) name = `${base}_${i}`;
    used.add(name);
    out.set(target, name);
  }
  return out;
}

function part(p: SerializedPart | null) {
  if (!p) return null;
  const g = p.goalA;
  return {
    instances: p.instances,
    k: p.k,
    basis: p.basis,
    proj: p.proj,
    goalA: { weights: g.weights, intercept: g.intercept, slope: g.slope, yMin: g.yMin, yMax: g.yMax, yMean: g.yMean, replicateIntercepts: g.replicateIntercepts, replicateSlopes: g.replicateSlopes },
  };
}

/**
 * The task whose row carries the prediction metrics: the first kept task (by name) whose proxy
 * documents are all scored under one filter, so the group can name exactly that filter.
 */
export function reportingTask(model: PaceModelFile, keptTasks: ReadonlySet<string>): { task: string; filter: string } | null {
  const filters = new Map<string, Set<string>>();
  for (const p of model.proxy) {
    if (!keptTasks.has(p.task)) continue;
    const set = filters.get(p.task) ?? new Set<string>();
    set.add(splitLabel(p.metric).filter);
    filters.set(p.task, set);
  }
  const [first] = [...filters].filter(([, f]) => f.size === 1).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return first ? { task: first[0], filter: [...first[1]][0]! } : null;
}

/** The part of the model file the harness-side prediction reads (everything predict.ts uses for the numbers it prints). */
export function paceSuiteModel(model: PaceModelFile, reporter: string | null = null): Record<string, unknown> {
  const names = paceMetricNames(model.targets.map((t) => t.target));
  return {
    format: PACE_SUITE_FORMAT,
    version: 3,
    // null: every task carries the prediction metrics (a suite whose tasks all mix filters).
    reporter,
    fittedOn: { matrixSha256: model.data.matrixSha256, targetsSha256: model.data.targetsSha256 },
    rangeTolerance,
    rangeNoiseZ,
    leverageTolerance,
    instances: model.proxy.map((p) => ({ key: p.key, task: p.task, metric: splitLabel(p.metric).metric })),
    targets: model.targets.map((t) => ({
      target: t.target,
      metric: names.get(t.target),
      scale: t.scale,
      displayFactor: t.displayFactor,
      effectiveM: t.effectiveM,
      local: part(t.local),
      global: part(t.global),
      shipped: t.shipped,
      cv: { absResiduals: t.cv.absResiduals, verdict: t.cv.verdict },
      range: t.range,
    })),
  };
}

/** `acc` → acc under filter none; `exact_match,first_line` → exact_match under first_line (ingest's metric label). */
function splitLabel(label: string): { metric: string; filter: string } {
  const comma = label.indexOf(',');
  return comma < 0 ? { metric: label, filter: 'none' } : { metric: label.slice(0, comma), filter: label.slice(comma + 1) };
}

/** The proxy suite with the prediction metrics added (a new map; `suite.files` is not changed). */
export function addPacePrediction(suite: ProxySuite, model: PaceModelFile, paceModule: string): Map<string, string> {
  const files = new Map(suite.files);
  const keptTasks = new Set(suite.taskFiles.keys());
  for (const [, file] of [...suite.taskFiles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const text = files.get(file)!;
    files.set(file, `${text}${text.endsWith('\n') ? '' : '\n'}# aptpace fit --suite: the same task, plus the PACE prediction metrics (aptpace_pace.py)\n${CLASS_LINE}\n`);
  }
  const reporter = reportingTask(model, keptTasks);
  const filters = reporter ? [reporter.filter] : [...new Set(model.proxy.filter((p) => keptTasks.has(p.task)).map((p) => splitLabel(p.metric).filter))].sort();
  const names = paceMetricNames(model.targets.map((t) => t.target));
  const metrics = [...names.values()].flatMap((m) => PACE_METRIC_FIELDS.map((f) => m + f));
  for (const file of suite.topGroupFiles) {
    const doc = parseDocument(files.get(file)!, { customTags: [{ tag: '!function', resolve: (s: string) => s }] as any });
    let list = doc.get('aggregate_metric_list');
    if (!isSeq(list)) {
      doc.set('aggregate_metric_list', doc.createNode([]));
      list = doc.get('aggregate_metric_list');
    }
    for (const metric of metrics) (list as any).add(doc.createNode({ metric, aggregation: 'mean', weight_by_size: false, filter_list: filters }));
    files.set(file, doc.toString());
  }
  files.set(PACE_MODEL_FILE, `${stableStringify(paceSuiteModel(model, reporter?.task ?? null), 1)}\n`);
  files.set(PACE_MODULE_FILE, paceModule);
  const readme = files.get('README.md') ?? '';
  files.set('README.md', `${readme}${readme && !readme.endsWith('\n') ? '\n' : ''}${readmeSection(model, names, suite, reporter?.task ?? null)}`);
  return files;
}

function readmeSection(model: PaceModelFile, names: Map<string, string>, suite: ProxySuite, reporter: string | null): string {
  const taskRow = reporter ? `the \`${reporter}\` task row` : 'every task row';
  const group = suite.topGroupFiles.length ? `the group row (and ${taskRow})` : taskRow;
  const rows = model.targets.map((t) => `| ${t.target} | \`${names.get(t.target)}\` | ${t.scale} | ${t.cv.verdict === 'better' ? 'yes' : `no (${t.cv.verdict})`} |`);
  return [
    '',
    '## Proxy-only suite: predicted agentic scores',
    '',
    `Written by \`aptpace fit --suite\`: only the ${model.proxy.length} proxy documents of the fitted PACE model, with the full suite's task names and document bytes, so \`aptpace ingest\`/\`check\` join a run of it to the full suite's instances. Every task is built with \`aptpace_pace.PaceTask\` (the \`class:\` line), which scores documents exactly as the emitted task and adds, per agentic target, the PACE prediction computed from \`pace_model.json\` as \`aptpace check\` computes it from the run's logs. In the results table, ${group} shows:`,
    '',
    '| target | metric | scale | skill shown in cross-validation |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    '- `<metric>`: predicted score; `<metric>_lo80`/`_hi80` and `_lo95`/`_hi95`: the 80% and 95% prediction intervals (conformal from the fit\'s cross-validated residuals, widened to the label-noise interval, clipped to the valid range). A target this run cannot predict shows -1 in every value (never NaN), with the reason logged as a warning.',
    '- `<metric>_vouched`: 1 when `aptpace check` raises no concern, 0 when it does (no demonstrated skill over the mean predictor, the checkpoint below every training model on the proxy set, or outside the training models\' range; the reasons are logged as warnings). A 0 means: do not read the prediction as a measurement.',
    '- `<metric>_missing`: proxy documents of that target this run did not score (the checkpoint is then placed from the others, as `check` does, with a warning).',
    reporter
      ? `- The numbers on the \`${reporter}\` row are the prediction from all proxy documents of the run, not that task's share; run the whole suite (\`--tasks\` naming the group) so that task is among them. Its samples file holds, per document, the score that fed the prediction (null for a document that is not a proxy of that target).`
      : '- The same numbers appear under each filter listed and on every task row: each is the prediction from all proxy documents of the run, not a per-task share. The per-document values in the samples files are the scores that fed it (null for a document that is not a proxy of that target).',
    '',
    'Where the table and `aptpace check --logs` can differ: `check` also applies `--min-score`/`--max-missing` and reports win probabilities (not shown here); a data-parallel run (each process scores only part of the documents) or a task with several filters (its documents are scored once per filter) shows -1 here with a warning, and a document without an `id` is not matched (counted missing); `check` on the logs handles all of these. Floating-point sums may differ in the last digits (well below the 4 decimals the table prints).',
    '',
  ].join('\n');
}
