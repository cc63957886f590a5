import type { Command } from 'commander';
import * as path from 'node:path';
import { withProgress } from '../progress.js';
import { UsageError, type CommandContext, type CommandSpec } from '../command.js';
import { addSourcesOption, duplicatesOption, listOption } from '../options.js';
import { OutputFolder } from '../../core/kernel/output.js';
import { stableStringify } from '../../core/kernel/stable-json.js';
import { findingFactory } from '../../core/kernel/findings.js';
import { renderTally } from '../../core/kernel/render.js';
import { packageVersion } from '../version.js';
import type { PaceModelFile } from '../../core/pace/model-file/model-file.js';

/** Flags shared by fit and evaluate (inputs, settings). */
export function configurePaceInputs(cmd: Command): Command {
  return addSourcesOption(cmd.option('--store <dir>', 'score store written by `aptpace ingest` (matrix + targets)'), 'per-instance source score table (PACE CSV layout or wide CSV)')
    .addOption(listOption('--targets <path>', 'agentic target results (OpenHands Index folder, aggregate JSON/CSV)'))
    .option('--mapping <file>', 'model-name mapping JSON {name in a file: canonical name}')
    .option('--target-names <file>', 'target-name mapping JSON {name in a file: canonical target name}')
    .addOption(duplicatesOption())
    .addOption(listOption('--target <name>', 'only these targets', { names: true }))
    .option('--config <file>', 'frozen settings per target, JSON {target: {budget, q, m, ncH, ncD}} (PACE names count/nc_h/nc_d accepted)')
    .option('--budget <C>', 'strict budget C for every target (overrides --config)')
    .option('--q <q>', 'share of the budget for local selection, 0..1 (overrides --config)')
    .option('--m <m>', 'weight of the local embedding in Goal A, 0..1 (overrides --config)')
    .option('--nc-h <n>', 'local embedding dimensions (overrides --config)')
    .option('--nc-d <n>', 'global embedding dimensions, 1..10 (overrides --config)')
    .option('--bootstrap <B>', 'bootstrap replicates over target instances (0 = off)', '300')
    .option('--alpha <a>', 'L2 penalty of the Bradley–Terry fit', '0.1')
    .option('--seed <seed>', 'seed for the bootstrap, randomized SVD and random baselines', '42')
    .option('--svd-scope <scope>', 'global SVD from training models only (fold) or from every pool model (all, PACE)', 'fold')
    .option('--min-model-coverage <share>', 'models observed on less than this share of source instances leave the pool', '0.7')
    .option('--min-complete-share <share>', 'below this share of instances observed for every pool model, the models whose gaps block most leave the pool (0 = never)', '0.5')
    .addOption(listOption('--exclude-benchmark <name>', 'leave these source benchmarks out: a task (gpqa/diamond) or a task prefix (gpqa)', { names: true }))
    .option('--pool <scope>', 'pool models: those with a target score (targets) or every source model (all)', 'targets');
}

const fit: CommandSpec = {
  name: 'fit',
  summary: 'Fit PACE: select a small proxy instance set per agentic target and write the model file and the proxy set (lm_eval --samples)',
  configure(cmd: Command) {
    configurePaceInputs(cmd)
      .requiredOption('--out <dir>', 'output folder for model.json, proxy-set.json, skill-map.json, samples.json (when every proxy has a numeric harness doc id) and proxy-suite/ (with --suite)')
      .option('--suite <dir>', 'the emitted suite the reference models ran: write proxy-suite/ with exactly the proxy documents (a checkpoint then runs only those)')
      .option('--tune', 'tune each target\'s settings by cross-validation over its models (the nested search; --config and the setting flags are then ignored); evaluate reports it as the shipped-tuned row')
      .option('--grid <file>', 'grid for --tune, JSON {budgets, qs, ms, ncHs, ncDs} (default: the nested search grid)')
      .option('--force', 'overwrite existing output files');
  },
  async run(_args, opts, ctx) {
    const settings = await import('../../core/pace/settings/settings.js');
    const { loadPaceInputs } = await import('../../core/pace/inputs/inputs.js');
    const { fitPace } = await import('../../core/pace/fit.js');
    const { proxySamples } = await import('../../core/pace/selection/proxy-set.js');
    const { paceFindings } = await import('../../core/pace/findings.js');
    const make = findingFactory(paceFindings);
    try {
      const spec = settings.inputSpec(opts);
      const options = settings.paceOptions(opts);
      const pool = settings.poolSettings(opts);
      const inputs = await settings.applyExclusions(await loadPaceInputs(ctx.vfs, spec, { onFinding: ctx.streamFinding }), opts);
      if (inputs.excluded) ctx.progress(`--exclude-benchmark: ${inputs.excluded} source instances left out`);
      for (const [label, tally] of Object.entries(inputs.tallies)) ctx.progress(renderTally(label, tally));
      const findings = [...inputs.findings];
      if (!inputs.matrix) return { findings, text: 'no source scores read' };
      const names = inputs.targets.map((t) => t.target).filter((t) => !opts.target || (opts.target as string[]).includes(t));
      const configs = await settings.targetConfigs(ctx.vfs, opts, names, inputs.targets.map((t) => t.target));
      const matrix = inputs.matrix;
      if (opts.grid && !opts.tune) throw new settings.SettingsError('--grid is the grid of --tune: give --tune too');
      const tune = opts.tune ? await settings.gridFrom(ctx.vfs, opts.grid as string | undefined) : null;
      const { model, findings: fitFindings } = await withProgress(ctx, 'fit', (onProgress) => fitPace(matrix, inputs.targets, {
        ...options,
        configs,
        ...(tune ? { tune } : {}),
        ...pool,
        ...(opts.target ? { targets: opts.target as string[] } : {}),
        versions: { aptpace: packageVersion(), modelFormat: '1' },
      }, onProgress));
      findings.push(...fitFindings);
      if (!model) return { findings, text: 'nothing fitted' };
      const { samples, nonNumeric } = proxySamples(model.proxy);
      if (nonNumeric.count) findings.push(make('pace-samples-non-numeric', {}, { count: nonNumeric.count, tasks: nonNumeric.tasks.join(', ') }));
      const out = new OutputFolder(ctx.vfs, opts.out as string, { force: Boolean(opts.force), set: 'fit' });
      const files: Record<string, string> = {
        'model.json': `${stableStringify(model, 1)}\n`,
        // Only a complete --samples object: one that silently leaves proxies out (or an empty one,
        // which lm_eval reads as "run everything") would cost a full run or a partial prediction.
        ...(nonNumeric.count === 0 && Object.keys(samples).length ? { 'samples.json': `${stableStringify(samples, 1)}\n` } : {}),
        'proxy-set.json': `${stableStringify({ instances: model.proxy, targets: model.targets.map((t) => ({ target: t.target, weights: t.linear.weights, intercept: t.linear.intercept })) }, 1)}\n`,
        'skill-map.json': `${stableStringify({ overall: model.skillMap, targets: Object.fromEntries(model.targets.map((t) => [t.target, t.skillMap])) }, 1)}\n`,
      };
      let proxySummary = '';
      if (opts.suite) {
        const suite = await proxySuiteFiles(ctx, opts.suite as string, model);
        findings.push(...suite.findings);
        for (const [name, text] of suite.files) files[`proxy-suite/${name}`] = text;
        proxySummary = suite.summary;
      }
      // One set: a run killed half way is detected when model.json is loaded, never mixed silently.
      await out.writeSet(files);
      const lines = [`fitted ${model.targets.length} target(s) on ${model.data.poolModels.length} models; ${model.proxy.length} proxy instances → ${out.root}`];
      if (proxySummary) lines.push(proxySummary);
      for (const t of model.targets)
        lines.push(
          `  ${t.target}: C=${t.config.budget} q=${t.config.q} m=${t.config.m} nc_h=${t.config.ncH} nc_d=${t.config.ncD}; ${t.linear.weights.length} instances; by task: ${t.skillMap.map((s) => `${s.task} ${(100 * s.instanceShare).toFixed(0)}%/${(100 * s.weightShare).toFixed(0)}%w`).join(', ')}`,
        );
      return { findings, data: { out: out.root, files: out.written, targets: model.targets.map((t) => t.target), proxy: model.proxy.length, skillMap: model.skillMap }, text: lines.join('\n') };
    } catch (e) {
      if (e instanceof settings.SettingsError) throw new UsageError(e.message);
      throw e;
    }
  },
};

/**
 * Reads the emitted suite and cuts it to the proxy documents (workflow/proxy-suite.ts). Proxy
 * instances the suite does not hold (another benchmark's, or a different suite's) are reported:
 * a checkpoint run on the proxy suite cannot score them.
 */
async function proxySuiteFiles(ctx: CommandContext, suiteDir: string, model: PaceModelFile) {
  const proxy = model.proxy;
  const { buildProxySuite } = await import('../../core/workflow/proxy-suite.js');
  const { addPacePrediction } = await import('../../core/workflow/proxy-suite-pace.js');
  const { loadPaceModule } = await import('../../core/emit/templates.js');
  const { workflowFindings } = await import('../../core/workflow/findings.js');
  const make = findingFactory(workflowFindings);
  const root = path.resolve(ctx.cwd, suiteDir);
  const st = await ctx.vfs.stat(root);
  if (!st?.isDirectory) throw new UsageError(`--suite ${suiteDir}: not a folder (pass the folder aptpace emit wrote)`);
  // A torn or mixed suite is refused: its proxy copy would mix two emits.
  const torn = await (await import('../../core/emit/suite-state.js')).verifySuiteFolder(ctx.vfs, root, suiteDir);
  if (torn.length) return { files: new Map<string, string>(), findings: torn, summary: '' };
  // The kernel walker: loops and dangling links are findings, hidden files (our set marks) skipped.
  const { walkTree } = await import('../../core/kernel/walk.js');
  const walked = await walkTree(ctx.vfs, root, { filter: (f) => !f.includes(`${path.sep}__pycache__${path.sep}`) });
  const files = new Map<string, string>();
  for (const file of walked.files) files.set(path.relative(root, file).split(path.sep).join('/'), await ctx.vfs.readText(file));
  const byTask = new Map<string, Set<string>>();
  for (const p of proxy) (byTask.get(p.task) ?? byTask.set(p.task, new Set()).get(p.task)!).add(p.doc_id);
  const built = buildProxySuite({ files, proxy: byTask });
  const findings = [...walked.findings];
  if (built.missing.length) findings.push(make('proxy-not-in-suite', { file: suiteDir }, { count: built.missing.length, total: proxy.length, examples: built.missing.slice(0, 5).join(', ') }));
  const docs = built.kept.reduce((n, k) => n + k.documents, 0);
  const all = built.kept.reduce((n, k) => n + k.of, 0);
  const fullTotal = [...files.keys()].filter((f) => f.startsWith('data/') && f.endsWith('.test.jsonl')).reduce((n, f) => n + files.get(f)!.split('\n').filter((l) => l.trim()).length, 0);
  return {
    // The suite prints the predicted agentic scores in the harness's own table (proxy-suite-pace.ts).
    files: addPacePrediction(built, model, await loadPaceModule(ctx.vfs)),
    findings,
    summary: `proxy-suite/: ${docs} documents in ${built.kept.length} task(s) (of ${all} in those tasks, ${fullTotal} in the suite); run it with lm_eval --include_path <out>/proxy-suite (its table shows the predicted agentic scores)`,
  };
}

export default fit;
