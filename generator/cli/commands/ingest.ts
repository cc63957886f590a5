import { targetModelsNotInStore } from '../../core/logs/targets/unmatched.js';
import type { Command } from 'commander';
import { nodeVfs } from '../../core/kernel/node-vfs.js';
import { startSamplePool } from '../ingest/sample-pool.js';
import { withProgress } from '../progress.js';
import { UsageError, type CommandSpec } from '../command.js';
import { addSourcesOption, collect, listOption } from '../options.js';
import type { Finding, Tally } from '../../core/kernel/findings.js';
import { appendAll } from '../../core/kernel/arrays.js';
import { renderTally } from '../../core/kernel/render.js';
import {
  countObserved,
  ingestLogs,
  logsFinding,
  matrixCoverage,
  mergeMatrices,
  narrowUnusedAliases,
  parseMetricRule,
  readModelMapping,
  readScoreTables,
  readTargets,
  renderCoverage,
  saveStore,
  type MetricRule,
  type ModelMapping,
  type ScoreMatrix,
  type SupersededRun,
  type TargetTable,
} from '../../core/logs/index.js';


const ingest: CommandSpec = {
  name: 'ingest',
  summary: 'Read harness logs, score tables and agentic targets into a models × instances score store',
  configure(cmd: Command) {
    addSourcesOption(
      cmd
        .argument('[log-roots...]', 'folders holding harness output (--output_path folders, any depth)')
        .requiredOption('--out <store>', 'store folder to write (store.json, values.f64, observed.u8)'),
      'external per-instance score table: a PACE per-model CSV folder or a wide CSV/TSV file',
    )
      .addOption(listOption('--targets <path>', 'agentic targets: OpenHands Index folder, {instance_id: {resolved}} file, aggregate JSON/CSV'))
      .option('--mapping <file>', 'model-name mapping (JSON {alias: canonical} or CSV alias,canonical), applied to every source')
      .option('--target-names <file>', 'target-name mapping in the same format, e.g. swe-bench → swebench')
      .option('--metric <rule>', 'TASK=METRIC[,FILTER] per-task metric choice; TASK may contain *; repeatable', collect)
      .option('--run <pin>', 'MODEL=TIMESTAMP|RESULTS-FILE|FOLDER: use that run for the model instead of the newest; repeatable', collect)
      .option('--duplicates <policy>', 'a table id repeated with another score: error (default) | first | last')
      .option('--table-format <format>', 'force the table format: pace-csv | wide')
      .option('--table-orientation <orientation>', 'wide tables: models-rows (default) | models-columns')
      .option('--target-scale <scale>', 'scale of aggregate target tables: fraction | percent | raw (default: inferred)')
      .option('--strict', 'warnings fail the run too (exit 1)')
      .option('--force', 'replace an existing store');
  },
  async run(args, opts, ctx) {
    const roots = args;
    const tables: string[] = opts.sources ?? [];
    const targetInputs: string[] = opts.targets ?? [];
    if (roots.length === 0 && tables.length === 0) throw new UsageError('give at least one log root or --sources input');
    const metrics: MetricRule[] = (opts.metric ?? []).map((spec: string) => {
      const rule = parseMetricRule(spec);
      if (!rule) throw new UsageError(`--metric ${spec}: expected TASK=METRIC[,FILTER]`);
      return rule;
    });
    const pins: Record<string, string> = {};
    for (const spec of (opts.run ?? []) as string[]) {
      const eq = spec.lastIndexOf('=');
      if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--run ${spec}: expected MODEL=TIMESTAMP`);
      pins[spec.slice(0, eq)] = spec.slice(eq + 1);
    }
    const oneOf = <T extends string>(flag: string, value: unknown, allowed: readonly T[]): T | undefined => {
      if (value === undefined) return undefined;
      if (!allowed.includes(value as T)) throw new UsageError(`${flag} ${value}: expected one of ${allowed.join(', ')}`);
      return value as T;
    };
    const duplicates = oneOf('--duplicates', opts.duplicates, ['error', 'first', 'last'] as const);
    const format = oneOf('--table-format', opts.tableFormat, ['pace-csv', 'wide'] as const);
    const orientation = oneOf('--table-orientation', opts.tableOrientation, ['models-rows', 'models-columns'] as const);
    const scale = oneOf('--target-scale', opts.targetScale, ['fraction', 'percent', 'raw'] as const);

    const findings: Finding[] = [];
    // The tables' mapping-unused is narrowed once the targets are read: it reaches the findings file in its final form, with the result.
    const tableListener = ctx.streamFinding && ((f: Finding) => (f.code === 'mapping-unused' ? undefined : ctx.streamFinding!(f)));
    const tallies: Record<string, Tally> = {};
    let mapping: ModelMapping | undefined;
    if (opts.mapping) {
      const r = await readModelMapping(ctx.vfs, opts.mapping, { onFinding: ctx.streamFinding });
      mapping = r.mapping;
      appendAll(findings, r.findings);
    }
    let targetNames: Record<string, string> | undefined;
    if (opts.targetNames) {
      const r = await readModelMapping(ctx.vfs, opts.targetNames, { onFinding: ctx.streamFinding });
      targetNames = r.mapping;
      appendAll(findings, r.findings);
    }

    let matrix: ScoreMatrix | undefined;
    let superseded: SupersededRun[] = [];
    if (roots.length) {
      ctx.progress(`ingesting harness logs under ${roots.join(', ')}`);
      // Samples files are parsed and hashed on worker threads when reading the real file system.
      const pool = ctx.vfs === nodeVfs ? startSamplePool() : undefined;
      const r = await withProgress(ctx, 'ingest', (onProgress) => ingestLogs(ctx.vfs, roots, { mapping, metrics, pins, onProgress, readSamples: pool?.read, onFinding: ctx.streamFinding })).finally(() => pool?.close());
      appendAll(findings, r.findings);
      tallies.samples = r.tally;
      superseded = r.superseded;
      matrix = r.matrix;
    }
    if (tables.length) {
      ctx.progress(`reading score tables ${tables.join(', ')}`);
      const r = await readScoreTables(ctx.vfs, tables, { mapping, duplicates, format, orientation, onFinding: tableListener });
      appendAll(findings, r.findings);
      tallies.tables = r.tally;
      if (matrix) {
        const merged = mergeMatrices(matrix, r.matrix, { onFinding: ctx.streamFinding, labels: ['harness logs', 'score tables'] });
        appendAll(findings, merged.findings);
        matrix = merged.matrix;
      } else matrix = r.matrix;
    }
    let targets: TargetTable[] = [];
    if (targetInputs.length) {
      ctx.progress(`reading targets ${targetInputs.join(', ')}`);
      const r = await readTargets(ctx.vfs, targetInputs, { mapping, scale, targetNames, onFinding: ctx.streamFinding });
      // One mapping serves tables and targets: an alias used only by the targets is used.
      if (mapping && tables.length) narrowUnusedAliases(findings, new Set(r.usedAliases));
      appendAll(findings, r.findings);
      tallies.targets = r.tally;
      targets = r.targets;
    }
    const store = matrix!;
    const observed = countObserved(store);
    if (observed === 0) {
      // A store of no scores would only hide the failure from the next stage.
      findings.push(logsFinding('store-nothing-accepted', {}, { inputs: [...roots, ...tables].join(', ') }));
      return {
        findings,
        strict: Boolean(opts.strict),
        text: [...Object.entries(tallies).map(([label, t]) => renderTally(label, t)), `store: nothing written to ${opts.out}`].join('\n'),
        data: { store: null, shape: [0, 0], observed: 0, tallies },
      };
    }
    findings.push(...targetModelsNotInStore(targets, store.models.map((m) => m.name), targetInputs.length === 1 ? targetInputs[0] : undefined));
    const written = await saveStore(ctx.vfs, opts.out, { matrix: store, targets }, { force: Boolean(opts.force) });
    ctx.progress(`wrote ${written.length} file(s) to ${opts.out}`);

    const coverage = matrixCoverage(store);
    const summary = `store: ${opts.out} (${store.models.length} × ${store.instances.length}, ${observed} observed)`;
    const text = [
      renderCoverage(store),
      ...Object.entries(tallies).map(([label, t]) => renderTally(label, t)),
      ...(superseded.length ? [`superseded: ${superseded.length} (model, task) sample file(s) replaced by newer runs`] : []),
      ...(targets.length ? [`targets: ${targets.map((t) => `${t.target} (${Object.keys(t.scores).length} models, ${t.scale})`).join(', ')}`] : []),
      summary,
    ].join('\n');
    return {
      findings,
      strict: Boolean(opts.strict),
      text,
      // -q: the store line only; the coverage table and tallies are for a reader at a terminal.
      quietText: summary,
      data: {
        store: opts.out,
        shape: [store.models.length, store.instances.length],
        observed,
        models: coverage.models,
        tasks: coverage.tasks,
        coverage: coverage.cells,
        metrics: store.provenance.metrics ?? {},
        tallies,
        superseded,
        targets: targets.map((t) => ({ target: t.target, scale: t.scale, models: Object.keys(t.scores).length, perInstanceModels: Object.keys(t.perInstance ?? {}).length })),
      },
    };
  },
};

export default ingest;
