import type { Command } from 'commander';
import * as path from 'node:path';
import { UsageError, type CommandSpec } from '../command.js';
import { checkpointInputOptions } from '../options.js';
import { findingFactory, type Finding } from '../../core/kernel/findings.js';
import { writeOutputFile } from '../../core/kernel/output.js';
import { stableStringify } from '../../core/kernel/stable-json.js';
import { refuseInputAsOutput } from '../../core/kernel/confine.js';
import { renderTally } from '../../core/kernel/render.js';


const predict: CommandSpec = {
  name: 'predict',
  summary: 'Predict agentic target scores of a checkpoint from its proxy-instance results, with bootstrap intervals and win probabilities',
  configure(cmd: Command) {
    checkpointInputOptions(cmd)
      .option('--out <file>', 'also write the predictions as JSON to this file')
      .option('--force', 'overwrite --out');
  },
  async run(_args, opts, ctx) {
    const settings = await import('../../core/pace/settings/settings.js');
    const { predictPace, checkpointScores } = await import('../../core/pace/predict.js');
    const { verifyProxyDocuments } = await import('../../core/pace/model-file/proxy-identity.js');
    const { loadCheckpointMatrix, checkpointSourceFromOptions, readModelFile } = await import('../../core/pace/model-file/checkpoint-inputs.js');
    const { evaluateCheck } = await import('../../core/report/check-result.js');
    const { paceFindings } = await import('../../core/pace/findings.js');
    const make = findingFactory(paceFindings);
    let thresholds: Record<string, number>;
    try {
      thresholds = settings.parseThresholds(opts.minScore as string[] | undefined);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const duplicates = opts.duplicates as 'error' | 'first' | 'last';
    const source = checkpointSourceFromOptions(opts);
    if (typeof source === 'string') throw new UsageError(source);
    const read = await readModelFile(ctx.vfs, opts.modelFile as string);
    if ('finding' in read) return { findings: [read.finding] };
    const { model } = read;
    try {
      settings.checkThresholdScales(thresholds, model.targets);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const inputs = await loadCheckpointMatrix(ctx.vfs, source, { ...(opts.mapping ? { mapping: opts.mapping as string } : {}), duplicates, onFinding: ctx.streamFinding });
    for (const [label, tally] of Object.entries(inputs.tallies)) ctx.progress(renderTally(label, tally));
    const findings: Finding[] = [...inputs.findings];
    let scores = inputs.matrix ? checkpointScores(inputs.matrix, opts.model as string) : null;
    if (scores && inputs.matrix) {
      const verified = verifyProxyDocuments(model, inputs.matrix, scores);
      scores = verified.scores;
      findings.push(...verified.findings);
    }
    if (!scores) {
      findings.push(make('pace-model-not-in-logs', {}, { model: opts.model, available: (inputs.matrix?.models ?? []).map((m) => m.name).join(', ') || 'none' }));
      return { findings };
    }
    const { forecasts, findings: predFindings } = await predictPace(model, opts.model as string, scores);
    findings.push(...predFindings);
    // Thresholds are judged exactly as `check` judges them.
    const verdict = evaluateCheck(model, opts.model as string, scores, forecasts, thresholds, null, { judgeConcerns: false });
    findings.push(...verdict.findings);
    const thresholdFailed = verdict.thresholdFailed;
    const data = { model: opts.model, modelFile: { matrixSha256: model.data.matrixSha256, versions: model.versions }, forecasts, thresholds };
    if (opts.out) await refuseInputAsOutput(ctx.vfs, path.resolve(ctx.cwd, opts.out as string), [opts.modelFile, opts.store, opts.mapping, ...((opts.logs as string[] | undefined) ?? []), ...((opts.sources as string[] | undefined) ?? [])].filter((p): p is string => typeof p === 'string').map((p) => path.resolve(ctx.cwd, p)));
    if (opts.out) await writeOutputFile(ctx.vfs, opts.out as string, `${stableStringify(data, 1)}\n`, Boolean(opts.force));
    const lines = forecasts.map((f) => {
      const unit = f.scale === 'percent' ? '%' : '';
      const interval = f.interval ? ` [${f.interval[0].toFixed(1)}, ${f.interval[1].toFixed(1)}]` : '';
      const best = [...f.winProbabilities].sort((a, b) => b.score - a.score)[0];
      const cv = `; CV MAE ${f.skill.mae.toFixed(2)} vs mean ${f.skill.meanMae.toFixed(2)}${f.concerns.length ? ` — not vouched for: ${f.concerns.join(', ')}` : ''}`;
      return `${f.target}: ${f.predicted.toFixed(1)}${unit}${interval}${cv}${f.missingInstances ? ` (${f.missingInstances}/${f.proxyInstances} proxy instances missing)` : ''}${f.guarded ? ' (range guard: training mean)' : ''}${best ? `; P(beats ${best.model}) = ${best.probability.toFixed(2)}` : ''}`;
    });
    return { findings, data, text: lines.join('\n'), thresholdFailed };
  },
};

export default predict;
