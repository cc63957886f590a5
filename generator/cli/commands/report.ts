import type { Command } from 'commander';
import type { CommandSpec } from '../command.js';
import { OutputFolder } from '../../core/kernel/output.js';
import { sha256, stableStringify } from '../../core/kernel/stable-json.js';
import { renderTally } from '../../core/kernel/render.js';
import { findingFactory, type Finding } from '../../core/kernel/findings.js';
import { logToTrackers, trackerOptions, trackerSettings } from '../trackers.js';
import { seriesCheckpoints } from '../../core/report/tracking.js';

const report: CommandSpec = {
  name: 'report',
  summary: 'Checkpoint series: predicted agentic scores with intervals along training for every checkpoint in a store, reference models as rules (report.html, summary.md, series.json)',
  configure(cmd: Command) {
    trackerOptions(cmd)
      .requiredOption('--store <dir>', 'score store holding the checkpoints (from `aptpace ingest`); the fit’s training models and reference models in it are not plotted as checkpoints')
      .requiredOption('--model-file <file>', 'model.json written by `aptpace fit`')
      .option('--reference <file>', 'reference file (aptpace-reference/1): its checkpoints’ step / tokens order the series; its reference models are excluded')
      .option('--history <file>', 'JSONL history written by `aptpace check --history`: steps of checkpoints, and checkpoints not in the store (as recorded)')
      .requiredOption('--out <dir>', 'report folder: report.html, summary.md, series.json, charts/*.vl.json')
      .option('--force', 'overwrite existing report files')
      .addHelpText('after', `
Examples:
  aptpace check --model-file fit/model.json --model step-4000 --store store --history reports/history.jsonl --step 4000 --out reports/step-4000
  aptpace report --store store --model-file fit/model.json --history reports/history.jsonl --out reports/series
  aptpace report --store store --model-file fit/model.json --reference reference.yaml --out reports/series`);
  },
  async run(_args, opts, ctx) {
    const { loadCheckpointMatrix, readModelFile } = await import('../../core/pace/model-file/checkpoint-inputs.js');
    const { predictPace, checkpointScores } = await import('../../core/pace/predict.js');
    const { readHistory } = await import('../../core/report/history.js');
    const { buildSeries } = await import('../../core/report/series.js');
    const { renderSeriesReport } = await import('../../core/report/series-report.js');
    const out = new OutputFolder(ctx.vfs, opts.out as string, { force: Boolean(opts.force), set: 'report' });
    for (const f of ['report.html', 'summary.md', 'series.json']) await out.check(f);
    const tracking = await trackerSettings(ctx.vfs, opts, out.root, 'series');

    const read = await readModelFile(ctx.vfs, opts.modelFile as string);
    if ('finding' in read) return { findings: [read.finding] };
    const findings: Finding[] = [];
    let reference = null;
    if (opts.reference) {
      const { parseReferenceFile } = await import('../../core/workflow/reference.js');
      const { workflowFindings } = await import('../../core/workflow/findings.js');
      let text: string;
      try {
        const st = await ctx.vfs.stat(opts.reference as string);
        if (st && !st.isFile) throw new Error('it is a directory, not a file');
        text = await ctx.vfs.readText(opts.reference as string);
      } catch (err) {
        // Same finding as `plan` for an unreadable reference file: no report from a half-known series.
        return { findings: [findingFactory(workflowFindings)('reference-unreadable', { file: opts.reference as string }, { reason: (err as Error).message })] };
      }
      const parsed = parseReferenceFile(text, opts.reference as string);
      findings.push(...parsed.findings);
      reference = parsed.reference ?? null;
    }
    const history = opts.history ? await readHistory(ctx.vfs, opts.history as string, { force: true }) : { entries: [], findings: [] };
    findings.push(...history.findings);
    const inputs = await loadCheckpointMatrix(ctx.vfs, { kind: 'store', paths: [opts.store as string] });
    for (const [label, tally] of Object.entries(inputs.tallies)) ctx.progress(renderTally(label, tally));
    findings.push(...inputs.findings);

    const series = await buildSeries({
      model: read.model,
      modelFile: { path: opts.modelFile as string, sha256: sha256(read.text) },
      matrix: inputs.matrix,
      reference,
      history: history.entries,
      predict: (name, scores) => predictPace(read.model, name, scores),
      scoresOf: checkpointScores,
    });
    findings.push(...series.findings);
    const result = { ...series, findings };
    const rendered = await renderSeriesReport(result, read.model);
    await out.writeSet({ 'series.json': `${stableStringify(result, 2)}\n`, 'summary.md': rendered.markdown, 'report.html': rendered.html, ...rendered.files });
    findings.push(
      ...(await logToTrackers(ctx, seriesCheckpoints(result), { ...tracking, modelFileSha256: result.modelFile.sha256 })),
    );
    const lines = result.checkpoints.map((c) => {
      const flagged = c.targets.filter((t) => t.flags.length).map((t) => t.target);
      const at = c.step !== null ? ` step ${c.step}` : c.tokens !== null ? ` tokens ${c.tokens}` : '';
      return `${c.model}${at}: ${c.targets.map((t) => `${t.target} ${t.predicted === null ? '–' : t.predicted.toFixed(3)}`).join(', ')}${flagged.length ? ` (flagged: ${flagged.join(', ')})` : ''}`;
    });
    return { findings, data: result, text: [...lines, `report: ${out.resolve('report.html')}`].join('\n') };
  },
};

export default report;
