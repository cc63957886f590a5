/**
 * The two scripts of a run plan. `run.sh` runs every job (or the ones named), skips jobs whose
 * harness logs are complete, keeps going past a failed job and ends with the list of failed
 * jobs and the command that reruns them (exit 1). `slurm.sbatch` runs one job per array task
 * through `run.sh`, so the harness command, environment and setup line apply there too.
 */
import type { PlanJob } from './run-plan.js';
import type { HarnessSettings, SlurmSettings } from './reference.js';

/** What the scripts need of a plan job: run-plan.ts's PlanJob (a type-only import, no runtime cycle). */
export type ScriptJob = PlanJob;

/** POSIX single-quote escaping: safe for any string in sh and bash. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./=:,@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Text inside a double-quoted shell string, printed as is. */
const inDoubleQuotes = (s: string) => s.replace(/[\\"$`]/g, (c) => `\\${c}`);

const oneLine = (s: string) => s.replace(/[\r\n]/g, ' ');

export function shellScript(jobs: ScriptJob[], command: string[], planDir: string, harness: Partial<HarnessSettings>, setCheck?: string): string {
  const last = jobs.length - 1;
  const outputs = jobs.map((j) => `    ${j.job}) printf '%s\\n' ${shellQuote(j.outputPath)} ;;`).join('\n');
  const cases = jobs
    .map((j) => `    ${j.job}) # ${oneLine(j.model)}, shard ${j.shard}\n      "\${HARNESS[@]}" ${j.argv.slice(j.argv.length - j.harnessArgs).map(shellQuote).join(' ')} ;;`)
    .join('\n');
  const env = (harness.env ?? []).map(([k, v]) => `export ${k}=${shellQuote(v)}`).join('\n');
  const setup = harness.setup ? `# harness.setup from the reference file:\n${oneLine(harness.setup)} || { echo "run.sh: the setup line failed" >&2; exit 1; }` : '';
  const rerun = `bash ${shellQuote(`${planDir}/run.sh`)}`;
  // The plan set is checked before anything runs: a torn or edited plan is refused (exit 2).
  const check = setCheck ? `${setCheck.trimEnd()}
aptpace_verify_plan_set "$(dirname "\${BASH_SOURCE[0]}")" || exit 2
` : '';
  return `#!/usr/bin/env bash
# Written by aptpace plan. Runs the plan's (model, shard) jobs one after another:
#   bash run.sh               # every job whose logs are not complete yet
#   bash run.sh N [N...]      # those jobs only (0-based; jobs.tsv lists them; slurm.sbatch runs one per array task)
#   bash run.sh --redo [N...] # run complete jobs again too
# A job is complete when its output folder holds the harness's results_*.json, which the
# harness writes last; a failed or killed job leaves none and runs again next time. A failed
# job does not stop the others: the end lists the failed jobs and how to rerun them (exit 1).
# A plan whose files are not the set aptpace plan wrote (torn, edited, mixed) is refused (exit 2).
# Run it from the folder the plan's paths are relative to.
set -uo pipefail
${check}${env}${env ? '\n' : ''}${setup}${setup ? '\n' : ''}HARNESS=(${command.map(shellQuote).join(' ')})
job_output() {
  case "$1" in
${outputs}
    *) echo "run.sh: no job $1 (0..${last})" >&2; return 2 ;;
  esac
}
run_job() {
  case "$1" in
${cases}
  esac
}
is_complete() { [ -d "$1" ] && [ -n "$(find "$1" -name 'results_*.json' -print -quit 2>/dev/null)" ]; }
redo=0
selected=()
for arg in "$@"; do
  case "$arg" in
    --redo) redo=1 ;;
    ''|*[!0-9]*) echo "run.sh: not a job number: $arg (usage: bash run.sh [--redo] [JOB...])" >&2; exit 2 ;;
    *) selected+=("$arg") ;;
  esac
done
[ "\${#selected[@]}" -gt 0 ] || selected=($(seq 0 ${last}))
for job in "\${selected[@]}"; do job_output "$job" >/dev/null || exit 2; done
ran=0; skipped=0; failed=()
for job in "\${selected[@]}"; do
  out=$(job_output "$job")
  if [ "$redo" = 0 ] && is_complete "$out"; then
    echo "run.sh: job $job is complete ($out); skipped (--redo runs it again)" >&2
    skipped=$((skipped + 1))
    continue
  fi
  echo "run.sh: job $job -> $out" >&2
  if run_job "$job"; then
    ran=$((ran + 1))
  else
    status=$?
    echo "run.sh: job $job failed (exit $status)" >&2
    failed+=("$job")
  fi
done
echo "run.sh: \${ran} job(s) ran, \${skipped} skipped as complete, \${#failed[@]} failed" >&2
if [ "\${#failed[@]}" -gt 0 ]; then
  echo "run.sh: failed job(s): \${failed[*]}; rerun them with: ${inDoubleQuotes(rerun)} \${failed[*]}" >&2
  exit 1
fi
`;
}

export function slurmScript(jobs: ScriptJob[], planDir: string, slurm: SlurmSettings): string {
  const directive = (flag: string) => `#SBATCH ${oneLine(flag)}`;
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
# Written by aptpace plan: one Slurm array task per (model, shard) job in jobs.tsv, run through
# run.sh (the reference file's harness command, environment and setup line apply; a task whose
# logs are complete returns at once). Submit from the folder the plan's paths are relative to:
#   sbatch path/to/slurm.sbatch            # every job; resubmitting reruns only incomplete ones
#   sbatch --array=3,7 path/to/slurm.sbatch  # only those jobs
#   sbatch path/to/slurm.sbatch --redo     # complete jobs too
#SBATCH --job-name=aptpace-suite
#SBATCH --array=0-${jobs.length - 1}
${resources}
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail
export HF_HUB_OFFLINE=\${HF_HUB_OFFLINE:-1} HF_DATASETS_OFFLINE=\${HF_DATASETS_OFFLINE:-1}
cd "\${SLURM_SUBMIT_DIR:?submit this with sbatch, or use run.sh}"
bash ${shellQuote(`${planDir}/run.sh`)} "$@" "\${SLURM_ARRAY_TASK_ID:?submit this with sbatch as an array job}"
`;
}
