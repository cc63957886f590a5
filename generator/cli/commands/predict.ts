import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';
import { findingFactory, type Finding } from '../../core/kernel/findings.js';
import { writeOutputFile } from '../../core/kernel/output.js';
import { stableStringify } from '../../core/kernel/stable-json.js';
import { renderTally } from '../../core/kernel/render.js';
import type { ScoreMatrix } from '../../core/logs/matrix.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const predict: CommandSpec = {
  name: 'predict',
  summary: 'Predict agentic target scores of a checkpoint from its proxy-instance results, with bootstrap intervals and win probabilities',
  configure(cmd: Command) {
    cmd
      .requiredOption('--model-file <file>', 'model.json written by `aptpace fit`')
      .requiredOption('--model <name>', 'the checkpoint, as named in its logs / score rows')
      .option('--logs <dirs...>', 'lm-evaluation-harness output folders of the checkpoint (run with --log_samples)')
      .option('--store <dir>', 'score store holding the checkpoint (from `aptpace ingest`)')
      .option('--sources <paths...>', 'score tables holding the checkpoint')
      .option('--mapping <file>', 'model-name mapping JSON')
      .option('--min-score <target=value>', 'fail (exit 1) when a predicted target score is below value (target scale); repeatable', collect)
      .option('--out <file>', 'also write the predictions as JSON to this file')
      .option('--force', 'overwrite --out');
  },
  async run(_args, opts, ctx) {
    const settings = await import('../../core/pace/settings.js');
    const { parseModelFile } = await import('../../core/pace/model-file.js');
    const { predictPace, checkpointScores } = await import('../../core/pace/predict.js');
    const { loadPaceInputs } = await import('../../core/pace/inputs.js');
    const { paceFindings } = await import('../../core/pace/findings.js');
    const make = findingFactory(paceFindings);
    let thresholds: Record<string, number>;
    try {
      thresholds = settings.parseThresholds(opts.minScore as string[] | undefined);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const given = [opts.logs, opts.store, opts.sources].filter(Boolean).length;
    if (given !== 1) throw new UsageError('give the checkpoint scores with exactly one of --logs DIR…, --store DIR or --sources PATH…');
    const parsed = parseModelFile(await ctx.vfs.readText(opts.modelFile as string));
    if (!parsed.model) return { findings: [make('pace-model-file-invalid', { file: opts.modelFile }, { reason: parsed.reason })] };
    const model = parsed.model;
    const findings: Finding[] = [];
    let matrix: ScoreMatrix | null = null;
    if (opts.logs) {
      const logs = await import('../../core/logs/index.js');
      let mapping: Record<string, string> | undefined;
      if (opts.mapping) {
        const read = await logs.readModelMapping(ctx.vfs, opts.mapping as string);
        findings.push(...read.findings);
        mapping = read.mapping;
      }
      const res = await logs.ingestLogs(ctx.vfs, opts.logs as string[], mapping ? { mapping } : {});
      findings.push(...res.findings);
      ctx.progress(renderTally('logs', res.tally));
      matrix = res.matrix;
    } else {
      const inputs = await loadPaceInputs(ctx.vfs, {
        ...(opts.store ? { store: opts.store as string } : {}),
        ...(opts.sources ? { sources: opts.sources as string[] } : {}),
        ...(opts.mapping ? { mapping: opts.mapping as string } : {}),
      });
      findings.push(...inputs.findings);
      for (const [label, tally] of Object.entries(inputs.tallies)) ctx.progress(renderTally(label, tally));
      matrix = inputs.matrix;
    }
    const scores = matrix ? checkpointScores(matrix, opts.model as string) : null;
    if (!scores) {
      findings.push(make('pace-model-not-in-logs', {}, { model: opts.model, available: (matrix?.models ?? []).map((m) => m.name).join(', ') || 'none' }));
      return { findings };
    }
    const { forecasts, findings: predFindings } = await predictPace(model, opts.model as string, scores);
    findings.push(...predFindings);
    let thresholdFailed = false;
    for (const [target, minimum] of Object.entries(thresholds)) {
      const f = forecasts.find((x) => x.target === target);
      if (!model.targets.some((t) => t.target === target)) {
        findings.push(make('pace-threshold-unknown-target', {}, { target, available: model.targets.map((t) => t.target).join(', ') }));
        thresholdFailed = true;
      } else if (!f || f.predicted < minimum) {
        findings.push(make('pace-threshold-failed', {}, { target, predicted: f ? +f.predicted.toFixed(3) : 'none', minimum }));
        thresholdFailed = true;
      }
    }
    const data = { model: opts.model, modelFile: { matrixSha256: model.data.matrixSha256, versions: model.versions }, forecasts, thresholds };
    if (opts.out) await writeOutputFile(ctx.vfs, opts.out as string, `${stableStringify(data, 1)}\n`, Boolean(opts.force));
    const lines = forecasts.map((f) => {
      const unit = f.scale === 'percent' ? '%' : '';
      const interval = f.interval ? ` [${f.interval[0].toFixed(1)}, ${f.interval[1].toFixed(1)}]` : '';
      const best = [...f.winProbabilities].sort((a, b) => b.score - a.score)[0];
      return `${f.target}: ${f.predicted.toFixed(1)}${unit}${interval}${f.missingInstances ? ` (${f.missingInstances}/${f.proxyInstances} proxy instances missing)` : ''}${f.guarded ? ' (range guard: training mean)' : ''}${best ? `; P(beats ${best.model}) = ${best.probability.toFixed(2)}` : ''}`;
    });
    return { findings, data, text: lines.join('\n'), thresholdFailed };
  },
};

export default predict;
