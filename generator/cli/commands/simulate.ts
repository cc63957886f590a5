import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';

/** A positive integer option, or a usage error naming the flag. */
function count(value: unknown, flag: string, min = 1): number {
  const v = Number(value);
  if (!Number.isInteger(v) || v < min) throw new UsageError(`${flag}: ${String(value)} is not an integer ≥ ${min}`);
  return v;
}

/**
 * Writes a score store of a simulated reference population with known truth, for judging the
 * predictors before trusting them on a population of the same size: `evaluate --store` reads
 * it like any store. Each target's noise-free expected score per model (percent) is kept in
 * the target's provenance (`expected`), beside the observed score the targets hold.
 */
const simulate: CommandSpec = {
  name: 'simulate',
  summary: 'Write a score store of a simulated population with known truth (abilities, model families, targets that need two skills, missing cells), to judge predictors with evaluate',
  configure(cmd: Command) {
    cmd
      .requiredOption('--models <n>', 'number of models in the population')
      .option('--instances <n>', 'source instances', '2000')
      .option('--tasks <n>', 'source tasks (benchmarks) the instances are dealt into', '6')
      .option('--dims <n>', 'dimensions of the ability space', '4')
      .option('--targets <n>', 'agentic targets', '2')
      .option('--target-instances <n>', 'items per target', '200')
      .option('--families <n>', 'model families, each around a centre of its own', '1')
      .option('--family-spread <sd>', 'spread of the family centres, in within-family standard deviations', '1.5')
      .option('--nonlinear', 'targets need two skills at once (a smooth minimum of two ability directions)')
      .option('--missing <share>', 'share of (model, task) blocks never run', '0')
      .option('--seed <seed>', 'seed of the simulation', 'simulate')
      .requiredOption('--out <store>', 'store folder to write')
      .option('--force', 'replace an existing store');
  },
  async run(_args, opts, ctx) {
    const { syntheticPace } = await import('../../core/pace/inputs/synthetic.js');
    const { saveStore } = await import('../../core/logs/store.js');
    const missing = Number(opts.missing);
    if (!(missing >= 0 && missing < 1)) throw new UsageError(`--missing: ${String(opts.missing)} is not a share in [0, 1)`);
    const spread = Number(opts.familySpread);
    if (!(Number.isFinite(spread) && spread >= 0)) throw new UsageError(`--family-spread: ${String(opts.familySpread)} is not a number ≥ 0`);
    const spec = {
      models: count(opts.models, '--models', 4),
      instances: count(opts.instances, '--instances'),
      tasks: count(opts.tasks, '--tasks'),
      dims: count(opts.dims, '--dims'),
      targets: count(opts.targets, '--targets'),
      targetInstances: count(opts.targetInstances, '--target-instances'),
      families: count(opts.families, '--families'),
      familySpread: spread,
      nonlinearTargets: Boolean(opts.nonlinear),
      missingShare: missing,
      seed: String(opts.seed),
    };
    const syn = syntheticPace(spec);
    const names = syn.matrix.models.map((m) => m.name);
    const targets = syn.targets.map((t) => ({
      ...t,
      provenance: { ...t.provenance, expected: Object.fromEntries(names.map((name, m) => [name, Math.round(1e6 * 100 * syn.expected[t.target]![m]!) / 1e6])) },
    }));
    const matrix = { ...syn.matrix, provenance: { ...syn.matrix.provenance, families: Object.fromEntries(names.map((name, m) => [name, syn.family[m]!])) } };
    const written = await saveStore(ctx.vfs, opts.out as string, { matrix, targets }, { force: Boolean(opts.force) });
    let observed = 0;
    for (const o of matrix.observed) observed += o;
    const summary = `store: ${opts.out as string} (${names.length} × ${matrix.instances.length}, ${observed} observed; ${spec.families} famil${spec.families === 1 ? 'y' : 'ies'}, ${spec.nonlinearTargets ? 'two-skill' : 'one-skill'} targets ${targets.map((t) => t.target).join(', ')})`;
    return { findings: [], text: summary, data: { store: opts.out, files: written, spec, shape: [names.length, matrix.instances.length], observed } };
  },
};

export default simulate;
