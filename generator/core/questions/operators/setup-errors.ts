/**
 * Setup errors and their fixes in a trajectory: which command failed with a setup-type error,
 * which error class it is, and which later command fixed it (env_setup_error_mcq's gold).
 * The class taxonomy also drives the distractors: a remedy for another class is a plausible
 * setup fix that does not address this error.
 */
import type { Step, Trajectory } from '../../trajectories/types.js';

export type SetupErrorClass =
  | 'missing_module'
  | 'missing_system_package'
  | 'missing_path'
  | 'permission'
  | 'stale_build'
  | 'version_conflict'
  | 'network'
  | 'env_variable';

interface ClassSpec {
  /** Observation text that marks the class (first matching class wins, in table order). */
  pattern: RegExp;
  /** What the class means, for reasons. */
  label: string;
  /** Remedies for this class; `{dir}`, `{file}`, `{pkg}`, `{module}` are filled from the prompt. */
  remedies: string[];
}

export const SETUP_ERROR_CLASSES: Record<SetupErrorClass, ClassSpec> = {
  missing_module: {
    pattern: /ModuleNotFoundError|No module named|ImportError: cannot import name|Cannot find module ['"]/,
    label: 'a missing Python/Node module',
    remedies: ['pip install {module}', 'pip install -e .', 'pip install -r requirements.txt'],
  },
  missing_system_package: {
    pattern: /Unable to locate package|command not found|Could not find a package configuration file|error while loading shared libraries|fatal error: [\w/.-]+\.h: No such file/,
    label: 'a missing system package or program',
    remedies: ['apt-get install -y {pkg}', 'apt-get install -y build-essential', 'conda install -y {pkg}'],
  },
  missing_path: {
    pattern: /can't cd to|No such file or directory|cannot access|does not exist/,
    label: 'a missing file or directory',
    remedies: ['mkdir -p {dir}', 'touch {file}', 'cd {dir}', 'mkdir -p build'],
  },
  permission: {
    pattern: /Permission denied|EACCES|Operation not permitted/,
    label: 'a permission problem',
    remedies: ['chmod +x {file}', 'chown -R $(whoami) {dir}', 'chmod -R u+rwX .'],
  },
  stale_build: {
    pattern: /could not load cache|CMakeCache\.txt|stale|Makefile: No such file|No rule to make target/,
    label: 'a stale or unconfigured build directory',
    // Never `rm -rf X && cmake -B X`: that also creates a missing directory, so it could be a real fix.
    remedies: ['make clean', 'rm -rf {dir}'],
  },
  version_conflict: {
    pattern: /VersionConflict|ResolutionImpossible|requires .* but you have|incompatible with|unsupported (Python|version)/,
    label: 'a version conflict',
    remedies: ['pip install --upgrade {module}', 'pip install "{module}<2"', 'pip install --upgrade pip setuptools wheel'],
  },
  network: {
    pattern: /Could not resolve host|Temporary failure in name resolution|Connection (refused|timed out)|Failed to fetch|ReadTimeoutError/,
    label: 'a network or package-index failure',
    remedies: ['apt-get update', 'pip install --index-url https://pypi.org/simple {module}', 'pip config set global.timeout 120'],
  },
  env_variable: {
    pattern: /environment variable|is not set|_DIR-NOTFOUND|JAVA_HOME|LD_LIBRARY_PATH/,
    label: 'a missing environment variable',
    remedies: ['export PATH=$PATH:{dir}', 'export LD_LIBRARY_PATH={dir}', 'export PYTHONPATH=$PWD'],
  },
};

const CLASS_ORDER = Object.keys(SETUP_ERROR_CLASSES) as SetupErrorClass[];

/** Commands that set up, build, install or test: the ones whose errors are setup errors. */
const SETUP_COMMAND = /(^|[\s;&|(])(pip3?|python3? -m pip|conda|mamba|apt(-get)?|yum|brew|npm|yarn|pnpm|cargo|go (build|get|mod)|make|cmake|ninja|mvn|gradle|poetry|tox|pytest|python3? -m pytest|python3? setup\.py|bundle|gem|composer|export|mkdir|ln|chmod|source|\.\/configure)(\s|$)/;
/** Commands that only look around: never a fix. */
const INSPECTION = /^(\s*(cd [^&;]+&&\s*)?)(ls|cat|head|tail|grep|rg|find|which|whereis|echo|pwd|apt-cache|pip (show|list|freeze)|conda list|env|printenv|file|stat|tree|less|more|wc|git (status|log|diff|show))(\s|$)|\s(-n|--dry-run|--version|--help)(\s|$)/;
/** Error marks in an observation when the exit code is unknown. */
const ERROR_MARK = /\b(Error|error:|ERROR|FAILED|Traceback|fatal:)|E: |command not found|No such file or directory/;

export function isSetupCommand(command: string): boolean {
  return SETUP_COMMAND.test(command);
}

export function isInspection(command: string): boolean {
  return INSPECTION.test(command);
}

function shellText(step: Step): string | null {
  const a = step.action;
  if (a.kind !== 'shell' && a.kind !== 'code') return null;
  const text = a.text.trim();
  return text && !text.includes('\n') ? text : null;
}

/** True when the step visibly failed: a non-zero exit code, or error marks when the code is unknown. */
export function failed(step: Step): boolean {
  const code = step.obs_meta?.exit_code;
  if (typeof code === 'number') return code !== 0;
  if (step.obs_meta?.ok === false) return true;
  return ERROR_MARK.test(step.observation ?? '');
}

/** True when the step visibly succeeded: exit code 0, or no error marks when the code is unknown. */
export function succeeded(step: Step): boolean {
  const code = step.obs_meta?.exit_code;
  if (typeof code === 'number') return code === 0;
  return step.obs_meta?.ok !== false && !ERROR_MARK.test(step.observation ?? '');
}

export function classifyError(observation: string): SetupErrorClass | null {
  return CLASS_ORDER.find((c) => SETUP_ERROR_CLASSES[c].pattern.test(observation)) ?? null;
}

/** The first line of the observation that carries the error class's mark: the error's signature. */
export function errorLine(observation: string, cls: SetupErrorClass): string {
  const line = observation.split('\n').find((l) => SETUP_ERROR_CLASSES[cls].pattern.test(l)) ?? '';
  return line.trim();
}

export interface ErrorFix {
  /** Index of the failing setup command. */
  failed: number;
  /** Index of the command that fixed it. */
  fix: number;
  cls: SetupErrorClass;
  /** The failing command, its error line and the fix command. */
  command: string;
  error: string;
  fixCommand: string;
}

/** Most steps between the error and its fix: further away, the link is a guess. */
export const FIX_WINDOW = 6;

/**
 * Error → fix pairs. A failing setup command (or a failure whose error is a setup class) is
 * fixed by the first later shell command that is a setup action (not an inspection), succeeds
 * and differs from the failing command; the pair counts only when the error's signature line
 * does not recur in any later step (the fix verifiably removed it). A failure followed by more
 * failures before a fix is paired with the last failure before the fix.
 */
export function errorFixPairs(t: Trajectory): { pairs: ErrorFix[]; errors: number } {
  const pairs: ErrorFix[] = [];
  let errors = 0;
  const steps = t.steps;
  for (let i = 0; i < steps.length; i++) {
    const command = shellText(steps[i]!);
    if (!command || !failed(steps[i]!)) continue;
    const obs = steps[i]!.observation ?? '';
    const cls = classifyError(obs);
    if (!cls || (!isSetupCommand(command) && cls === 'missing_path')) continue;
    errors++;
    const error = errorLine(obs, cls);
    for (let j = i + 1; j < steps.length && j <= i + FIX_WINDOW; j++) {
      const candidate = shellText(steps[j]!);
      if (!candidate) continue;
      // Another failure of a setup command starts its own pair.
      if (failed(steps[j]!) && classifyError(steps[j]!.observation ?? '')) break;
      if (isInspection(candidate) || !isSetupCommand(candidate) || !succeeded(steps[j]!)) continue;
      if (candidate === command) break;
      const recurs = error !== '' && steps.slice(j + 1).some((s) => (s.observation ?? '').includes(error));
      if (!recurs) pairs.push({ failed: i, fix: j, cls, command, error, fixCommand: candidate });
      break;
    }
  }
  return { pairs, errors };
}

/** Paths, packages and modules the prompt mentions, to fill remedy templates plausibly. */
export interface PromptEntities {
  dirs: string[];
  files: string[];
  pkgs: string[];
  modules: string[];
}

export function promptEntities(texts: readonly string[]): PromptEntities {
  const dirs = new Set<string>();
  const files = new Set<string>();
  const pkgs = new Set<string>();
  const modules = new Set<string>();
  for (const text of texts) {
    for (const m of text.matchAll(/(?:^|[\s'"`(=])((?:\/|\.\/)?[\w.-]+(?:\/[\w.-]+)+\/?)/g)) {
      const p = m[1]!.replace(/[.,:;]+$/, '');
      // System locations (`/bin/sh` in "/bin/sh: 1: cd: …") are never what a fix should touch.
      if (/^\/(bin|sbin|etc|dev|proc|sys|usr\/bin)(\/|$)/.test(p)) continue;
      // Extension-less build files (`Makefile`) are files too, or `mkdir -p …/Makefile` would be offered.
      if (/\.[A-Za-z0-9]{1,5}$/.test(p) || /\/(Makefile|Dockerfile|Gemfile|Rakefile|Procfile|LICENSE|README)$/.test(p)) files.add(p);
      else dirs.add(p.replace(/\/$/, ''));
    }
    for (const m of text.matchAll(/No module named ['"]?([\w.]+)/g)) modules.add(m[1]!.split('.')[0]!);
    for (const m of text.matchAll(/(?:apt-get|apt|conda|brew) install (?:-y )?([\w.+-]+)/g)) pkgs.add(m[1]!);
    for (const m of text.matchAll(/pip3? install (?:-U |--upgrade )?([A-Za-z][\w.-]*)/g)) modules.add(m[1]!);
    for (const m of text.matchAll(/Unable to locate package ([\w.+-]+)/g)) pkgs.add(m[1]!);
    for (const m of text.matchAll(/([\w.+-]+): command not found/g)) pkgs.add(m[1]!);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return { dirs: sorted(dirs), files: sorted(files), pkgs: sorted(pkgs), modules: sorted(modules) };
}
