import * as path from 'node:path';
import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import type { Question } from '../questions/types.js';
import { emitFindings } from './findings.js';
import { siblingSuiteNames, writeSuiteFolder, type WrittenFile } from './install.js';
import type { McqScoring } from './kinds/index.js';
import { builtinTaskNames, type BuiltinTaskNames } from './names.js';
import { DEFAULT_HARNESS_VERSION, DEFAULT_NUM_FEWSHOT, planSuite, type PlannedTask } from './plan.js';
import { loadSuiteTemplates } from './templates.js';

export interface EmitOptions {
  /** Group name and `--tasks` argument; `[A-Za-z0-9_-]`, not a built-in harness name. */
  suite: string;
  /** The suite folder itself (its files go directly inside). */
  outDir: string;
  /** Multiple-choice scoring: the answer letter (default) or the option text. */
  scoring?: McqScoring;
  /** Few-shot pool: explicit questions, or `split` = input questions marked `split: fewshot`. Absent = zero-shot. */
  fewshot?: Question[] | 'split';
  /** Examples per prompt when a pool is given (default 3). */
  numFewshot?: number;
  force?: boolean;
  /** Prepended to each question's `task` to form the harness task name (e.g. `proxy_`). */
  taskPrefix?: string;
  /** Harness version the suite targets (default 0.4.13); recorded and checked. */
  harnessVersion?: string;
  /** Folder holding README.md.hbs and utils.py.hbs (default: the package's templates/suite). */
  templateDir?: string;
  /** Group scores weighted by document count instead of the macro average over tasks (default false). */
  weightBySize?: boolean;
}

export interface EmitResult {
  /** Every file written, relative to `suiteDir`, sorted; empty when nothing was written. */
  files: WrittenFile[];
  findings: Finding[];
  /** The command that runs the suite (model left as `$MODEL`). */
  lmEvalCommand: string;
  suiteDir: string;
  tasks: PlannedTask[];
}

const make = findingFactory(emitFindings);

/** Compiles `questions` into a harness task suite in `options.outDir`. Writes nothing when any error is found. */
export async function emitSuite(vfs: Vfs, questions: Question[], options: EmitOptions): Promise<EmitResult> {
  const suiteDir = path.resolve(options.outDir);
  return compileAndWrite(vfs, questions, options, suiteDir, runCommand(options.suite, suiteDir));
}

export interface InstallOptions extends Omit<EmitOptions, 'outDir'> {
  /** Root of an lm-evaluation-harness checkout (holds lm_eval/tasks). */
  checkout: string;
}

/** Installs the suite as `lm_eval/tasks/<suite>/` of a harness checkout; no `--include_path` needed afterwards. */
export async function installIntoHarness(vfs: Vfs, questions: Question[], options: InstallOptions): Promise<EmitResult> {
  const tasksDir = path.resolve(options.checkout, 'lm_eval', 'tasks');
  const suiteDir = path.join(tasksDir, options.suite);
  const stat = await vfs.stat(tasksDir).catch(() => undefined);
  if (!stat?.isDirectory) {
    return { files: [], findings: [make('emit-harness-checkout-invalid', { file: options.checkout }, { checkout: options.checkout })], lmEvalCommand: '', suiteDir, tasks: [] };
  }
  // Names and version come from the checkout itself (its task YAMLs, its pyproject or
  // dist-info), not from the snapshot, which only serves `--out` where there is no checkout.
  const { readCheckoutNames } = await import('./harness-checkout.js');
  const checkout = await readCheckoutNames(vfs, options.checkout);
  const harnessVersion = checkout.versionSource ? checkout.harness_version : (options.harnessVersion ?? DEFAULT_HARNESS_VERSION);
  const builtins = { harness_version: harnessVersion, names: checkout.names };
  // The suite name becomes a folder under lm_eval/tasks; planSuite rejects a name such as
  // `../x` before anything is written, so the joined path never reaches the disk.
  const result = await compileAndWrite(vfs, questions, { ...options, harnessVersion, outDir: suiteDir }, suiteDir, runCommand(options.suite), true, builtins);
  return { ...result, findings: [...checkout.findings.filter((f) => f.severity === 'error'), ...result.findings] };
}

async function compileAndWrite(vfs: Vfs, questions: Question[], options: EmitOptions, suiteDir: string, lmEvalCommand: string, insideHarness = false, builtins?: BuiltinTaskNames): Promise<EmitResult> {
  const harnessVersion = options.harnessVersion ?? DEFAULT_HARNESS_VERSION;
  const plan = planSuite(
    questions,
    {
      suite: options.suite,
      scoring: options.scoring ?? 'letter',
      fewshot: options.fewshot,
      numFewshot: options.numFewshot ?? DEFAULT_NUM_FEWSHOT,
      harnessVersion,
      taskPrefix: options.taskPrefix,
      weightBySize: options.weightBySize,
    },
    builtins ?? (await builtinTaskNames()),
    await loadSuiteTemplates(vfs, options.templateDir),
  );
  if (plan.files.size === 0) return { files: [], findings: plan.findings, lmEvalCommand: '', suiteDir, tasks: [] };
  const taken = await siblingSuiteNames(vfs, suiteDir);
  const clashes = [options.suite, ...plan.tasks.map((t) => t.task)].filter((n) => taken.has(n));
  if (clashes.length) {
    const found = clashes.map((name) =>
      make('emit-name-duplicate', { file: path.join(path.dirname(suiteDir), taken.get(name)!) }, { kind: name === options.suite ? 'suite' : 'task', name, other: `a name of the sibling suite in ${taken.get(name)}` }),
    );
    return { files: [], findings: [...plan.findings, ...found], lmEvalCommand: '', suiteDir, tasks: [] };
  }
  const { written, findings } = await writeSuiteFolder(vfs, suiteDir, plan.files, {
    suite: options.suite,
    tasks: plan.tasks.map((t) => t.task),
    harnessVersion,
    force: options.force ?? false,
    insideHarness,
  });
  const all = [...plan.findings, ...findings];
  if (written.length === 0) return { files: [], findings: all, lmEvalCommand: '', suiteDir, tasks: [] };
  return { files: written, findings: all, lmEvalCommand, suiteDir, tasks: plan.tasks };
}

/** The exact command line; `$MODEL` is the one thing the user supplies. */
export function runCommand(suite: string, includePath?: string): string {
  const parts = ['HF_HUB_OFFLINE=1', 'HF_DATASETS_OFFLINE=1', 'lm_eval', '--model', 'hf', '--model_args', '"pretrained=$MODEL"'];
  if (includePath) parts.push('--include_path', shellQuote(includePath));
  parts.push('--tasks', suite, '--log_samples', '--output_path', shellQuote(`runs/${suite}`));
  return parts.join(' ');
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
