/**
 * Run plans for the cluster: the lm-evaluation-harness commands for every (model, shard), as a
 * plain shell script and a Slurm array job. The harness does the GPU work; this only says
 * what to run. Shards split the suite's documents so that every document is in exactly one
 * shard, through the harness's own `--samples` (indices into each task's test split).
 *
 * lm-eval 0.4.13 runs EVERY document of a task whose `--samples` list is empty or missing,
 * so a shard names in `--tasks` only the tasks it has documents of, never the whole group.
 */
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import { workflowFindings } from './findings.js';
import type { HarnessModel, SlurmSettings } from './reference.js';

const make = findingFactory(workflowFindings);

export interface SuiteTasks {
  /** `--include_path` value, as the user wrote it (relative to where the plan runs). */
  includePath: string;
  /** Test-split document count per task, in suite order. */
  tasks: Array<{ task: string; documents: number }>;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
  /** Task → sorted document indices; only tasks with at least one document. */
  samples: Record<string, number[]>;
  documents: number;
}

export interface PlanJob {
  /** 0-based job number (the Slurm array index). */
  job: number;
  model: string;
  shard: number;
  outputPath: string;
  argv: string[];
}

export interface RunPlan {
  shards: Shard[];
  jobs: PlanJob[];
  /** Files to write, relative to the plan folder. */
  files: Record<string, string>;
}

export interface RunPlanOptions {
  models: HarnessModel[];
  suite: SuiteTasks;
  shards: number;
  /** Folder the harness writes logs under (one sub-folder per model and shard). */
  runsDir: string;
  /** Where the plan folder will be, as seen from where the scripts run (for the shard files). */
  planDir: string;
  harness: { batch_size?: string; device?: string; extra_args: string[] };
  slurm?: SlurmSettings;
  lmEval?: string;
}

/** Splits the suite's documents into `count` contiguous, near-equal shards in suite order. */
export function shardSuite(suite: SuiteTasks, count: number): { shards: Shard[]; findings: Finding[] } {
  const total = suite.tasks.reduce((n, t) => n + t.documents, 0);
  if (count < 1 || count > total) return { shards: [], findings: [make('plan-shards-too-many', {}, { shards: count, documents: total })] };
  const shards: Shard[] = [];
  let task = 0;
  let within = 0;
  for (let s = 0; s < count; s++) {
    // Shard s holds global documents [floor(s·total/count), floor((s+1)·total/count)).
    let take = Math.floor(((s + 1) * total) / count) - Math.floor((s * total) / count);
    const samples: Record<string, number[]> = {};
    const documents = take;
    while (take > 0) {
      const t = suite.tasks[task]!;
      const n = Math.min(take, t.documents - within);
      if (n > 0) (samples[t.task] ??= []).push(...Array.from({ length: n }, (_, i) => within + i));
      within += n;
      take -= n;
      if (within >= t.documents) {
        task++;
        within = 0;
      }
    }
    shards.push({ index: s + 1, count, samples, documents });
  }
  return { shards, findings: [] };
}

/** A file or folder name for a model: harness-safe and stable (the name itself when it is). */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return cleaned === '' ? 'model' : cleaned;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export function shardFileName(shard: Shard): string {
  const w = String(shard.count).length;
  return `shard-${pad(shard.index, w)}-of-${shard.count}.json`;
}

/** POSIX single-quote escaping: safe for any string in sh and bash. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./=:,@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export function buildRunPlan(options: RunPlanOptions): { plan?: RunPlan; findings: Finding[] } {
  const { shards, findings } = shardSuite(options.suite, options.shards);
  if (shards.length === 0) return { findings };
  const lmEval = options.lmEval ?? 'lm_eval';
  const jobs: PlanJob[] = [];
  const files: Record<string, string> = {};
  for (const shard of shards) files[`shards/${shardFileName(shard)}`] = `${JSON.stringify(shard.samples)}\n`;
  const sharded = shards.length > 1;
  for (const model of options.models) {
    for (const shard of shards) {
      const outputPath = sharded
        ? `${options.runsDir}/${safeName(model.name)}/${shardFileName(shard).replace(/\.json$/, '')}`
        : `${options.runsDir}/${safeName(model.name)}`;
      const argv = [
        lmEval,
        '--model', model.model,
        '--model_args', model.model_args,
        '--include_path', options.suite.includePath,
        '--tasks', Object.keys(shard.samples).join(','),
        '--samples', `${options.planDir}/shards/${shardFileName(shard)}`,
        '--log_samples',
        '--output_path', outputPath,
        ...(options.harness.batch_size ? ['--batch_size', options.harness.batch_size] : []),
        ...(options.harness.device ? ['--device', options.harness.device] : []),
        ...options.harness.extra_args,
        ...model.extra_args,
      ];
      jobs.push({ job: jobs.length, model: model.name, shard: shard.index, outputPath, argv });
    }
  }
  files['jobs.tsv'] = `job\tmodel\tshard\toutput_path\n${jobs.map((j) => `${j.job}\t${j.model}\t${j.shard}\t${j.outputPath}`).join('\n')}\n`;
  files['run.sh'] = shellScript(jobs);
  files['slurm.sbatch'] = slurmScript(jobs, options.planDir, options.slurm ?? { gres: 'gpu:1', cpus_per_task: 8, time: '04:00:00', directives: [] });
  return { plan: { shards, jobs, files }, findings };
}

function shellScript(jobs: PlanJob[]): string {
  const cases = jobs.map((j) => `    ${j.job}) # ${j.model.replace(/[\r\n]/g, ' ')}, shard ${j.shard}\n      ${j.argv.map(shellQuote).join(' ')} ;;`).join('\n');
  return `#!/usr/bin/env bash
# Written by aptpace plan. Runs every (model, shard) job of the plan in turn, or one job:
#   bash run.sh        # all ${jobs.length} jobs, one after another
#   bash run.sh N      # job N only (0-based; jobs.tsv lists them; slurm.sbatch runs one per array task)
# Run it from the folder the plan's paths are relative to.
set -euo pipefail
run_job() {
  case "$1" in
${cases}
    *) echo "run.sh: no job $1 (0..${jobs.length - 1})" >&2; return 2 ;;
  esac
}
if [ "$#" -gt 0 ]; then
  run_job "$1"
else
  for job in $(seq 0 ${jobs.length - 1}); do run_job "$job"; done
fi
`;
}

function slurmScript(jobs: PlanJob[], planDir: string, slurm: SlurmSettings): string {
  const directive = (flag: string) => `#SBATCH ${flag.replace(/[\r\n]/g, ' ')}`;
  const resources = [
    ...(slurm.partition ? [`--partition=${slurm.partition}`] : []),
    ...(slurm.gres !== 'none' ? [`--gres=${slurm.gres}`] : []),
    `--cpus-per-task=${slurm.cpus_per_task}`,
    `--time=${slurm.time}`,
    ...slurm.directives,
  ].map(directive).join('\n');
  // sbatch runs a spooled copy of this file, so $0 does not point into the plan folder: the
  // plan is found from the submit directory, which is where the plan's paths are relative to.
  return `#!/usr/bin/env bash
# Written by aptpace plan: one Slurm array task per (model, shard) job in jobs.tsv.
# Submit from the folder the plan's paths are relative to:  sbatch path/to/slurm.sbatch
# Resources come from the reference file's slurm: block; the harness does the GPU work.
#SBATCH --job-name=aptpace-suite
#SBATCH --array=0-${jobs.length - 1}
${resources}
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail
export HF_HUB_OFFLINE=\${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=\${HF_DATASETS_OFFLINE:-1}
cd "\${SLURM_SUBMIT_DIR:?submit this with sbatch, or use run.sh}"
bash ${shellQuote(`${planDir}/run.sh`)} "\${SLURM_ARRAY_TASK_ID:?submit this with sbatch as an array job}"
`;
}
