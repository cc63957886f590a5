import * as path from 'node:path';
import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';
import { checkpointInputOptions } from '../options.js';
import { logToTrackers, trackerOptions, trackerSettings } from '../trackers.js';
import { checkedCheckpoint } from '../../core/report/tracking.js';
import { findingFactory, type Finding } from '../../core/kernel/findings.js';
import { OutputFolder, writeOutputFile } from '../../core/kernel/output.js';
import { sha256, stableStringify } from '../../core/kernel/stable-json.js';
import { escapeTerminal, renderTally } from '../../core/kernel/render.js';
import type { HistoryEntry } from '../../core/report/history.js';

const REPORT_FILES = ['report.html', 'summary.md', 'result.json'] as const;

function fraction(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < 0 || v > 1) throw new UsageError(`--max-missing must be a fraction in [0, 1] (got ${raw})`);
  return v;
}

function step(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const v = Number(raw);
  if (!Number.isFinite(v)) throw new UsageError(`--step must be a number (got ${raw})`);
  return v;
}

const check: CommandSpec = {
  name: 'check',
  summary: 'CI step per checkpoint: predict agentic scores, apply thresholds, write report.html (plots), summary.md and result.json',
  configure(cmd: Command) {
    trackerOptions(checkpointInputOptions(cmd))
      .requiredOption('--out <dir>', 'report folder: report.html, summary.md, result.json, charts/*.vl.json (Vega-Lite specs of the plots)')
      .option('--max-missing <fraction>', 'fail (exit 1) when a target misses more than this fraction of its proxy instances')
      .option('--history <file>', 'JSONL history of earlier checks: adds a trend plot; this checkpoint’s line is appended or replaced')
      .option('--allow-unproven', 'judge targets whose model showed no skill over the mean predictor in cross-validation, or whose checkpoint lies outside the training range (otherwise such a target does not pass)')
      .option('--step <number>', 'training step of the checkpoint (orders the trend plot)')
      .option('--force', 'overwrite existing report files; drop unreadable history lines');
  },
  async run(_args, opts, ctx) {
    const settings = await import('../../core/pace/settings/settings.js');
    const { predictPace, checkpointScores } = await import('../../core/pace/predict.js');
    const { verifyProxyDocuments } = await import('../../core/pace/model-file/proxy-identity.js');
    const { paceFindings } = await import('../../core/pace/findings.js');
    const { loadCheckpointMatrix, checkpointSourceFromOptions, readModelFile } = await import('../../core/pace/model-file/checkpoint-inputs.js');
    const { evaluateCheck, buildCheckResult } = await import('../../core/report/check-result.js');
    const history = await import('../../core/report/history.js');
    const { checkFindings } = await import('../../core/report/check-findings.js');
    const { renderCheckReport, checkVerdict } = await import('../../core/report/checkpoint-report.js');
    let thresholds: Record<string, number>;
    try {
      thresholds = settings.parseThresholds(opts.minScore as string[] | undefined);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const maxMissing = fraction(opts.maxMissing as string | undefined);
    const checkpointStep = step(opts.step as string | undefined);
    const duplicates = opts.duplicates as 'error' | 'first' | 'last';
    const source = checkpointSourceFromOptions(opts);
    if (typeof source === 'string') throw new UsageError(source);
    const force = Boolean(opts.force);
    const out = new OutputFolder(ctx.vfs, opts.out as string, { force, set: 'check' });
    const historyFile = opts.history ? path.resolve(opts.history as string) : null;
    if (historyFile && REPORT_FILES.some((f) => path.resolve(out.root, f) === historyFile)) throw new UsageError(`--history must not be one of the report files (${REPORT_FILES.join(', ')})`);
    // Refuse before any work, so a wrong --out costs nothing and nothing is half-written.
    for (const f of REPORT_FILES) await out.check(f);
    const tracking = await trackerSettings(ctx.vfs, opts, out.root, opts.model as string);

    const read = await readModelFile(ctx.vfs, opts.modelFile as string);
    if ('finding' in read) return { findings: [read.finding] };
    const { model, text: modelFileText } = read;
    try {
      settings.checkThresholdScales(thresholds, model.targets);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const checkpoint = opts.model as string;

    const inputs = await loadCheckpointMatrix(ctx.vfs, source, { ...(opts.mapping ? { mapping: opts.mapping as string } : {}), duplicates, onFinding: ctx.streamFinding });
    for (const [label, tally] of Object.entries(inputs.tallies)) ctx.progress(renderTally(label, tally));
    const findings: Finding[] = [...inputs.findings];
    let scores = inputs.matrix ? checkpointScores(inputs.matrix, checkpoint) : null;
    if (scores && inputs.matrix) {
      const verified = verifyProxyDocuments(model, inputs.matrix, scores);
      scores = verified.scores;
      findings.push(...verified.findings);
    }
    let forecasts: Awaited<ReturnType<typeof predictPace>>['forecasts'] = [];
    if (!scores) {
      findings.push(findingFactory(paceFindings)('pace-model-not-in-logs', {}, { model: checkpoint, available: (inputs.matrix?.models ?? []).map((m) => m.name).join(', ') || 'none' }));
    } else {
      const predicted = await predictPace(model, checkpoint, scores);
      forecasts = predicted.forecasts;
      findings.push(...predicted.findings);
    }
    const evaluation = evaluateCheck(model, checkpoint, scores, forecasts, thresholds, maxMissing, { allowUnproven: Boolean(opts.allowUnproven) });
    findings.push(...evaluation.findings);

    const modelFileSha = sha256(modelFileText);
    let entries: HistoryEntry[] = [];
    let writeHistory = false;
    if (historyFile) {
      const read = await history.readHistory(ctx.vfs, historyFile, { force });
      findings.push(...read.findings);
      entries = read.entries;
      writeHistory = read.writable && scores !== null;
      if (read.writable && !scores) findings.push(findingFactory(checkFindings)('check-history-not-updated', { file: opts.history as string }, { reason: `checkpoint ${checkpoint} was not found in the inputs` }));
      const other = history.otherModelFileFinding(entries, { model: checkpoint, sha256: modelFileSha }, opts.history as string);
      if (other) findings.push(other);
    }

    const result = buildCheckResult({
      model,
      modelFile: { path: opts.modelFile as string, sha256: modelFileSha },
      checkpoint,
      step: checkpointStep,
      source,
      mapping: (opts.mapping as string | undefined) ?? null,
      maxMissing,
      history: (opts.history as string | undefined) ?? null,
      found: scores !== null,
      evaluation,
      findings,
    });
    if (writeHistory) entries = history.upsertHistory(entries, history.historyEntry(result));
    const report = await renderCheckReport(result, model, entries);
    const json = `${stableStringify(result, 2)}\n`;
    await out.writeSet({ 'result.json': json, 'summary.md': report.markdown, 'report.html': report.html, ...report.files });
    if (historyFile && writeHistory) {
      // The history is check's own file: rewritten (atomically) without --force; a link at its name is followed.
      await writeOutputFile(ctx.vfs, historyFile, history.serializeHistory(entries), true);
    }

    findings.push(
      ...(await logToTrackers(ctx, [checkedCheckpoint(history.historyEntry(result))], { ...tracking, modelFileSha256: modelFileSha })),
    );

    const lines = result.targets.map((t) => {
      const unit = t.scale === 'percent' ? '%' : '';
      const value = t.predicted === null ? 'no prediction' : `${t.predicted.toFixed(t.scale === 'percent' ? 1 : 3)}${unit}`;
      const interval = t.interval ? ` [${t.interval[0].toFixed(t.scale === 'percent' ? 1 : 3)}, ${t.interval[1].toFixed(t.scale === 'percent' ? 1 : 3)}]` : '';
      const missing = t.missingInstances && result.found ? ` (${t.missingInstances}/${t.proxyInstances} proxy instances missing)` : '';
      const cv = t.skill ? `; CV MAE ${t.skill.mae.toFixed(2)} vs mean ${t.skill.meanMae.toFixed(2)}` : '';
      const why = t.concerns.length ? ` (${t.concerns.join(', ')})` : '';
      return `${t.target}: ${value}${interval}${missing}${cv} — ${t.status}${why}`;
    });
    const verdict = checkVerdict(result);
    // Each line escaped on its own: a newline inside a model or target name cannot start a forged "PASS" line.
    const text = [`${verdict.ok ? 'PASS' : 'FAIL'} ${checkpoint}: ${verdict.text}`, ...lines, `report: ${path.join(opts.out as string, 'report.html')}`].map((line) => escapeTerminal(line, false)).join('\n');
    return { findings, data: result, text, thresholdFailed: evaluation.thresholdFailed };
  },
};

export default check;
