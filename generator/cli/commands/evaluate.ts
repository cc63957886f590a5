import type { Command } from 'commander';
import { withProgress } from '../progress.js';
import { alignMarkdownTables } from '../table.js';
import { UsageError, type CommandSpec } from '../command.js';
import { OutputFolder } from '../../core/kernel/output.js';
import { stableStringify } from '../../core/kernel/stable-json.js';
import { findingFactory } from '../../core/kernel/findings.js';
import { renderTally } from '../../core/kernel/render.js';
import { configurePaceInputs } from './fit.js';

const evaluate: CommandSpec = {
  name: 'evaluate',
  summary: 'Leave-one-model-out evaluation of PACE (frozen and nested-tuned settings) beside baselines; table + JSON report',
  configure(cmd: Command) {
    configurePaceInputs(cmd)
      .option('--no-nested', 'skip the nested hyper-parameter search')
      .option('--grid <file>', 'nested search grid JSON {budgets, qs, ms, ncHs, ncDs}')
      .option('--budgets <list>', 'budget curve under the frozen settings, comma-separated ("" = none)', '25,50,100,200,400')
      .option('--baselines <list>', 'comma-separated baselines (mean, overall-mean-ols, benchmark-means, benchmark-means-lasso, ridge-all, lasso-all, knn-models, correlation-top-c, random-c; "" = none)')
      .option('--outer-folds <k>', 'outer loop: auto (leave-one-out up to 50 models, 10 folds dealt by model-name hash above), loo, or a number of folds', 'auto')
      .option('--max-folds <n>', 'evaluate only the first n outer folds (timing runs)')
      .option('--out <dir>', 'write loocv.md and loocv.json here')
      .option('--force', 'overwrite existing output files');
  },
  async run(_args, opts, ctx) {
    const settings = await import('../../core/pace/settings/settings.js');
    const { loadPaceInputs } = await import('../../core/pace/inputs/inputs.js');
    const { prepareData } = await import('../../core/pace/inputs/prepare.js');
    const { runLoocv } = await import('../../core/pace/evaluation/loocv.js');
    const { baselineOrder } = await import('../../core/pace/predictors/baselines.js');
    const { renderLoocvTable } = await import('../../core/pace/evaluation/report.js');
    const { paceFindings } = await import('../../core/pace/findings.js');
    const { gridSize } = await import('../../core/pace/pipeline.js');
    const { defaultFoldProtocol } = await import('../../core/pace/evaluation/folds.js');
    const make = findingFactory(paceFindings);
    try {
      const spec = settings.inputSpec(opts);
      const options = settings.paceOptions(opts);
      const pool = settings.poolSettings(opts);
      const budgets = String(opts.budgets ?? '')
        .split(',')
        .filter((s) => s.trim() !== '')
        .map((s) => {
          const v = Number(s);
          if (!Number.isInteger(v) || v < 1) throw new settings.SettingsError(`--budgets: ${s} is not a positive integer`);
          return v;
        });
      const wanted = opts.baselines === undefined ? baselineOrder : String(opts.baselines).split(',').filter((s) => s.trim() !== '');
      for (const b of wanted) if (!(baselineOrder as string[]).includes(b)) throw new settings.SettingsError(`--baselines: unknown baseline ${b} (known: ${baselineOrder.join(', ')})`);
      const maxFolds = opts.maxFolds === undefined ? undefined : Number(opts.maxFolds);
      if (maxFolds !== undefined && !(Number.isInteger(maxFolds) && maxFolds > 0)) throw new settings.SettingsError('--max-folds must be a positive integer');
      const outerText = String(opts.outerFolds ?? 'auto');
      const outerFolds = outerText === 'auto' ? 'auto' : outerText === 'loo' ? 'leave-one-out' : Number(outerText);
      if (typeof outerFolds === 'number' && !(Number.isInteger(outerFolds) && outerFolds >= 2)) throw new settings.SettingsError(`--outer-folds: ${outerText} is not auto, loo or an integer ≥ 2`);
      const grid = opts.nested === false ? null : await settings.gridFrom(ctx.vfs, opts.grid);
      // Refuse an existing --out before the LOOCV, which can take minutes.
      const out = opts.out ? new OutputFolder(ctx.vfs, opts.out as string, { force: Boolean(opts.force), set: 'evaluate' }) : undefined;
      for (const name of ['loocv.json', 'loocv.md']) await out?.check(name);
      const inputs = await settings.applyExclusions(await loadPaceInputs(ctx.vfs, spec, { onFinding: ctx.streamFinding }), opts);
      if (inputs.excluded) ctx.progress(`--exclude-benchmark: ${inputs.excluded} source instances left out`);
      for (const [label, tally] of Object.entries(inputs.tallies)) ctx.progress(renderTally(label, tally));
      const findings = [...inputs.findings];
      if (!inputs.matrix) return { findings, text: 'no source scores read' };
      const names = inputs.targets.map((t) => t.target).filter((t) => !opts.target || (opts.target as string[]).includes(t));
      const frozen = await settings.targetConfigs(ctx.vfs, opts, names, inputs.targets.map((t) => t.target));
      const prepared = prepareData(inputs.matrix, inputs.targets, {
        bootstrap: options.bootstrap,
        seed: options.seed,
        ...pool,
        ...(opts.target ? { targets: opts.target as string[] } : {}),
      });
      findings.push(...prepared.findings);
      if (!prepared.data || prepared.data.targets.length === 0) return { findings, text: 'nothing to evaluate' };
      if (grid) findings.push(make('pace-nested-grid', {}, { configs: gridSize(grid) }));
      const kFold = typeof outerFolds === 'number' || (outerFolds === 'auto' && prepared.data.targets.some((t) => t.rows.length > defaultFoldProtocol.leaveOneOutUpTo));
      if (kFold) ctx.progress(`cross-validation over models (--outer-folds ${outerText}; leave-one-out up to ${defaultFoldProtocol.leaveOneOutUpTo} models, ${typeof outerFolds === 'number' ? outerFolds : defaultFoldProtocol.folds} folds above): ${prepared.data.targets.length} target(s)${maxFolds ? `, the first ${maxFolds} fold(s)` : ''}`);
      else ctx.progress(`leave-one-model-out: ${prepared.data.targets.length} target(s), ${maxFolds ? `the first ${maxFolds} training model(s)` : 'each training model'} held out in turn`);
      const report = await withProgress(ctx, 'evaluate', (onProgress) => runLoocv(prepared.data!, {
        ...options,
        frozen,
        nested: grid,
        baselines: wanted as typeof baselineOrder,
        budgetCurve: budgets,
        ...(maxFolds ? { maxFolds } : {}),
        outerFolds,
        // No per-fold lines: on a terminal the bar shows them, and in a log one line per fold is noise.
        onProgress,
      }));
      const table = renderLoocvTable(report);
      if (out) {
        await out.writeSet({ 'loocv.json': `${stableStringify(report, 1)}\n`, 'loocv.md': table });
      }
      return { findings, data: report, text: alignMarkdownTables(table) };
    } catch (e) {
      if (e instanceof settings.SettingsError) throw new UsageError(e.message);
      throw e;
    }
  },
};

export default evaluate;
