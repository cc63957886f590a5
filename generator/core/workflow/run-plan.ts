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
import { sha256 } from '../kernel/stable-json.js';
import { DEFAULT_HARNESS_COMMAND, type HarnessModel, type HarnessSettings, type SlurmSettings } from './reference.js';
import { shellQuote, shellScript, slurmScript } from './run-plan-scripts.js';

const make = findingFactory(workflowFindings);

export interface SuiteTasks {
  /** `--include_path` value, as the user wrote it (relative to where the plan runs). */
  includePath: string;
  /**
   * Test-split document count per task, in suite order, and each document's estimated cost
   * (`suite-tasks.ts`: prompt tokens × forward passes; absent → 1 per document).
   */
  tasks: Array<{ task: string; documents: number; costs?: number[] }>;
}

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
  /** Task → sorted document indices; only tasks with at least one document. */
  samples: Record<string, number[]>;
  documents: number;
  /** Estimated cost, in the suite's cost units. */
  cost: number;
}

export interface PlanJob {
  /** 0-based job number (the Slurm array index). */
  job: number;
  model: string;
  shard: number;
  outputPath: string;
  /** The whole command: the harness command (argv prefix) then the lm-eval flags. */
  argv: string[];
  /** How many of argv's trailing entries are lm-eval flags (the rest is the harness command). */
  harnessArgs: number;
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
  harness: Partial<HarnessSettings> & { extra_args: string[] };
  slurm?: SlurmSettings;
  /** templates/plan/verify-plan-set.sh: run.sh includes it and refuses a torn or edited plan set. */
  setCheck?: string;
}

/**
 * Splits the suite's documents into `count` contiguous shards of near-equal estimated cost, in
 * suite order (unit cost per document when the suite carries no estimate, which gives shards of
 * near-equal document counts). Every shard holds at least one document.
 */
export function shardSuite(suite: SuiteTasks, count: number): { shards: Shard[]; findings: Finding[] } {
  const costs: number[] = [];
  for (const t of suite.tasks) for (let i = 0; i < t.documents; i++) costs.push(Math.max(Number.EPSILON, t.costs?.[i] ?? 1));
  const total = costs.length;
  if (count < 1 || count > total) return { shards: [], findings: [make('plan-shards-too-many', {}, { shards: count, documents: total })] };
  const cumulative = new Float64Array(total + 1);
  for (let i = 0; i < total; i++) cumulative[i + 1] = cumulative[i]! + costs[i]!;
  // Boundary s (documents before shard s) is the one nearest s/count of the total cost, keeping
  // at least one document for this shard and for each one after it.
  const bounds = [0];
  for (let s = 1; s < count; s++) {
    const goal = (s * cumulative[total]!) / count;
    let lo = bounds[s - 1]! + 1;
    let hi = total - (count - s);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < goal) lo = mid + 1;
      else hi = mid;
    }
    const below = lo - 1;
    bounds.push(below > bounds[s - 1]! && goal - cumulative[below]! <= cumulative[lo]! - goal ? below : lo);
  }
  bounds.push(total);
  const owner: Array<{ task: string; index: number }> = [];
  for (const t of suite.tasks) for (let i = 0; i < t.documents; i++) owner.push({ task: t.task, index: i });
  const shards: Shard[] = [];
  for (let s = 0; s < count; s++) {
    const samples: Record<string, number[]> = {};
    for (let d = bounds[s]!; d < bounds[s + 1]!; d++) (samples[owner[d]!.task] ??= []).push(owner[d]!.index);
    shards.push({ index: s + 1, count, samples, documents: bounds[s + 1]! - bounds[s]!, cost: cumulative[bounds[s + 1]!]! - cumulative[bounds[s]!]! });
  }
  return { shards, findings: [] };
}

/** A file or folder name for a model: harness-safe and stable (the name itself when it is). */
export function safeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return cleaned === '' ? 'model' : cleaned;
}

/**
 * The run folder for a model: its name when that is already safe, else the safe form plus a
 * short hash of the name, so `a/b` and `a_b` never share a folder and a name always maps to
 * the same folder whatever else the plan holds (reruns find their logs).
 */
export function runFolderName(name: string): string {
  const safe = safeName(name);
  return safe === name ? name : `${safe}-${sha256(name).slice(0, 8)}`;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export function shardFileName(shard: Shard): string {
  const w = String(shard.count).length;
  return `shard-${pad(shard.index, w)}-of-${shard.count}.json`;
}

export { shellQuote };

export function buildRunPlan(options: RunPlanOptions): { plan?: RunPlan; findings: Finding[] } {
  const { shards, findings } = shardSuite(options.suite, options.shards);
  if (shards.length === 0) return { findings };
  const command = options.harness.command?.length ? options.harness.command : DEFAULT_HARNESS_COMMAND;
  const jobs: PlanJob[] = [];
  const files: Record<string, string> = {};
  for (const shard of shards) files[`shards/${shardFileName(shard)}`] = `${JSON.stringify(shard.samples)}\n`;
  const sharded = shards.length > 1;
  for (const model of options.models) {
    for (const shard of shards) {
      const outputPath = sharded
        ? `${options.runsDir}/${runFolderName(model.name)}/${shardFileName(shard).replace(/\.json$/, '')}`
        : `${options.runsDir}/${runFolderName(model.name)}`;
      const argv = [
        ...command,
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
      jobs.push({ job: jobs.length, model: model.name, shard: shard.index, outputPath, argv, harnessArgs: argv.length - command.length });
    }
  }
  files['jobs.tsv'] = `job\tmodel\tshard\toutput_path\n${jobs.map((j) => `${j.job}\t${j.model}\t${j.shard}\t${j.outputPath}`).join('\n')}\n`;
  files['model-names.csv'] = modelNamesCsv(jobs);
  files['run.sh'] = shellScript(jobs, command, options.planDir, options.harness, options.setCheck);
  files['slurm.sbatch'] = slurmScript(jobs, options.planDir, options.slurm ?? { gres: 'gpu:1', cpus_per_task: 8, time: '04:00:00', directives: [] });
  return { plan: { shards, jobs, files }, findings };
}

/**
 * `alias,canonical` rows for `aptpace ingest --mapping`: each job's output folder → the model's
 * name in the reference file. The harness names a run after `pretrained=` (`org/base-a`, the
 * same for every revision of one repository); ingest also looks up the folder a run was
 * written to, so the store keys every run by the name targets.csv uses.
 */
function modelNamesCsv(jobs: PlanJob[]): string {
  const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  return `alias,canonical\n${jobs.map((j) => `${quote(j.outputPath)},${quote(j.model)}`).join('\n')}\n`;
}
