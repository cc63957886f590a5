import * as path from 'node:path';
import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';
import { hasErrors, type Finding } from '../../core/kernel/findings.js';
import { OutputFolder } from '../../core/kernel/output.js';
import { budgetFindings, parseReferenceFile, targetsCsv } from '../../core/workflow/reference.js';
import { buildRunPlan } from '../../core/workflow/run-plan.js';
import { loadPlanSetCheck } from '../../core/emit/templates.js';
import { readSuiteTasks } from '../../core/workflow/suite-tasks.js';
import { workflowFindings } from '../../core/workflow/findings.js';
import { findingFactory } from '../../core/kernel/findings.js';

const make = findingFactory(workflowFindings);

const plan: CommandSpec = {
  name: 'plan',
  summary: 'Check a reference-population file and write harness run plans (shell script + Slurm array job) for every model and shard',
  configure(cmd: Command) {
    cmd
      .requiredOption('--reference <file>', 'reference-population YAML (models, how to run them, their agentic scores; see docs/workflow.md)')
      .option('--suite <dir>', 'emitted suite folder (default: suite.path in the reference file)')
      .option('--shards <n>', 'split every model\'s run into N shards (each document in exactly one)', '1')
      .option('--models <which>', 'which models to plan: references, checkpoints or all', 'all')
      .option('--runs <dir>', 'folder the harness writes logs to (one sub-folder per model and shard)', 'runs')
      .option('--budget <n>', 'proxy budget you intend to fit with, to check the population can support it')
      .option('--check-only', 'only check the reference file')
      .option('--out <dir>', 'plan folder (run.sh, slurm.sbatch, jobs.tsv, shards/)')
      .option('--force', 'overwrite an earlier plan');
  },
  async run(_args, opts, ctx) {
    const shards = Number(opts.shards);
    if (!Number.isInteger(shards) || shards < 1 || shards > 10_000) throw new UsageError(`--shards must be an integer from 1 to 10000, got ${opts.shards}`);
    if (!['references', 'checkpoints', 'all'].includes(opts.models)) throw new UsageError(`--models must be references, checkpoints or all, got ${opts.models}`);
    if (!opts.checkOnly && !opts.out) throw new UsageError('pass --out DIR for the plan, or --check-only');
    const referencePath = opts.reference as string;
    const findings: Finding[] = [];
    let text: string;
    try {
      const st = await ctx.vfs.stat(path.resolve(ctx.cwd, referencePath));
      if (st && !st.isFile) throw new Error('it is a directory, not a file');
      text = await ctx.vfs.readText(path.resolve(ctx.cwd, referencePath));
    } catch (err) {
      return { findings: [make('reference-unreadable', { file: referencePath }, { reason: (err as Error).message })] };
    }
    const parsed = parseReferenceFile(text, referencePath);
    findings.push(...parsed.findings);
    const reference = parsed.reference;
    if (reference && opts.budget !== undefined) {
      const budget = Number(opts.budget);
      if (!Number.isInteger(budget) || budget < 1) throw new UsageError(`--budget must be a positive integer, got ${opts.budget}`);
      findings.push(...budgetFindings(reference.references.length, budget, referencePath));
    }
    const summary = reference
      ? `${reference.references.length} reference model(s), ${reference.targets.length} target(s) [${reference.targets.join(', ')}], ${reference.checkpoints.length} checkpoint(s)`
      : 'reference file not usable';
    if (opts.checkOnly || !reference || hasErrors(findings)) {
      return { findings, data: { reference: reference ?? null }, text: summary };
    }
    const suiteOption = (opts.suite as string | undefined) ?? reference.suite?.path;
    if (!suiteOption) throw new UsageError('name the suite with --suite DIR or suite.path in the reference file');
    const suiteRead = await readSuiteTasks(ctx.vfs, path.resolve(ctx.cwd, suiteOption), suiteOption);
    findings.push(...suiteRead.findings);
    if (!suiteRead.suite) return { findings, text: summary };
    const models = [
      ...(opts.models !== 'checkpoints' ? reference.references : []),
      ...(opts.models !== 'references' ? reference.checkpoints : []),
    ];
    if (models.length === 0) throw new UsageError(`the reference file lists no ${opts.models === 'all' ? 'models' : opts.models}`);
    const setCheck = await loadPlanSetCheck(ctx.vfs);
    const built = buildRunPlan({ models, suite: suiteRead.suite, shards, runsDir: opts.runs, planDir: opts.out, harness: reference.harness, slurm: reference.slurm, setCheck });
    findings.push(...built.findings);
    if (!built.plan) return { findings, text: summary };
    const out = new OutputFolder(ctx.vfs, path.resolve(ctx.cwd, opts.out as string), { force: Boolean(opts.force), set: 'plan' });
    // The references' agentic scores, for `aptpace ingest --targets plans/targets.csv`.
    const files: Record<string, string> = { ...built.plan.files, 'targets.csv': targetsCsv(reference) };
    const names = Object.keys(files).sort();
    // One set: a run killed half way leaves a plan its consumers refuse, never a new run.sh beside an old slurm.sbatch.
    await out.writeSet(Object.fromEntries(names.map((name) => [name, files[name]!])));
    const documents = suiteRead.suite.tasks.reduce((n, t) => n + t.documents, 0);
    return {
      findings,
      data: { reference, shards: built.plan.shards.map((s) => ({ index: s.index, documents: s.documents, tasks: Object.keys(s.samples) })), jobs: built.plan.jobs.map(({ argv, ...j }) => ({ ...j, command: argv })) },
      text: `${summary}\n${built.plan.jobs.length} job(s): ${models.length} model(s) × ${built.plan.shards.length} shard(s) of ${documents} documents\nwrote ${names.length} files to ${opts.out}: run.sh (bash run.sh [JOB]), slurm.sbatch (sbatch), jobs.tsv, shards/, targets.csv and model-names.csv (for ingest --targets plans/targets.csv --mapping plans/model-names.csv)`,
    };
  },
};

export default plan;
