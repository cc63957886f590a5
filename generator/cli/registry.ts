import type { CommandSpec } from './command.js';

/**
 * Every subcommand, in the order `--help` lists them. Each module is imported lazily so
 * that heavy dependencies load only for the command that runs.
 */
export const commandRegistry: Array<{ name: string; summary: string; load: () => Promise<CommandSpec> }> = [
  { name: 'demo', summary: 'Run the whole pipeline on the built-in example data', load: async () => (await import('./commands/demo.js')).default },
  { name: 'run', summary: 'Run the pipeline from aptpace.yaml (one section per command, mirroring its flags), skipping up-to-date stages', load: async () => (await import('./commands/run.js')).default },
  { name: 'inspect', summary: 'Per trajectory file: detected format, steps, success and its evidence, token estimate', load: async () => (await import('./commands/inspect.js')).default },
  { name: 'normalize', summary: 'Convert trajectories of any supported format to canonical JSONL (traj/1)', load: async () => (await import('./commands/normalize.js')).default },
  { name: 'build', summary: 'Build APTBench-style questions (MCQ and completion) from successful trajectories', load: async () => (await import('./commands/build.js')).default },
  { name: 'audit', summary: 'Audit questions per task: letter balance, duplicates, leaks, shortcut baselines vs chance', load: async () => (await import('./commands/audit.js')).default },
  { name: 'review', summary: 'HTML review page for questions; apply exported decisions to a status file', load: async () => (await import('./commands/review.js')).default },
  { name: 'emit', summary: 'Compile questions into an lm-evaluation-harness task suite, or install it into a harness checkout', load: async () => (await import('./commands/emit.js')).default },
  { name: 'plan', summary: 'Check a reference-population file; write harness run plans (shell + Slurm array) for every model and shard', load: async () => (await import('./commands/plan.js')).default },
  { name: 'ingest', summary: 'Read harness logs, score tables and agentic targets into a models × instances score store', load: async () => (await import('./commands/ingest.js')).default },
  { name: 'fit', summary: 'Fit PACE: select a small proxy instance set per agentic target; write the model file and the proxy set (lm_eval --samples)', load: async () => (await import('./commands/fit.js')).default },
  { name: 'predict', summary: 'Predict agentic scores of a checkpoint from its proxy-instance results, with intervals and win probabilities (CI gate: --min-score)', load: async () => (await import('./commands/predict.js')).default },
  { name: 'evaluate', summary: 'Leave-one-model-out report of PACE (frozen and nested-tuned) beside baselines and a budget curve', load: async () => (await import('./commands/evaluate.js')).default },
  { name: 'simulate', summary: 'Write a score store of a simulated population with known truth (model families, two-skill targets, missing cells), to judge predictors with evaluate', load: async () => (await import('./commands/simulate.js')).default },
  { name: 'check', summary: 'CI step per checkpoint: predict agentic scores, apply thresholds, write report.html (plots), summary.md and result.json', load: async () => (await import('./commands/check.js')).default },
  { name: 'ls', summary: 'List what a path holds: suite tasks, score-store or model-file models, tasks and targets, config stages', load: async () => (await import('./commands/ls.js')).default },
  { name: 'validate', summary: 'Check an emitted suite against its manifest, or a config file (aptpace.yaml, reference.yaml), without running anything', load: async () => (await import('./commands/validate.js')).default },
  { name: 'report', summary: 'Checkpoint series: predicted agentic scores with intervals along training for every checkpoint in a store, reference models as rules', load: async () => (await import('./commands/report.js')).default },
];
