import type { Command, Option } from 'commander';
import type { Finding } from '../core/kernel/findings.js';
import type { Vfs } from '../core/kernel/vfs.js';
import type { ProcessRunner } from '../core/kernel/process.js';
import type { ProgressReporter } from './progress.js';

export interface CommandContext {
  vfs: Vfs;
  cwd: string;
  json: boolean;
  /** Human progress lines; silent under --json or --quiet. */
  progress: (message: string) => void;
  /** A progress bar on stderr for long work; silent unless stderr is a terminal, and under --json or --quiet. */
  progressBar?: (title: string) => Promise<ProgressReporter>;
  /**
   * Runs another aptpace command in-process (demo and run chain commands). Passed in, so
   * commands never import the CLI entry point (no import cycle).
   */
  invoke: (argv: string[], io: { stdout: (s: string) => void; stderr: (s: string) => void }) => Promise<number>;
  /** The options another command accepts, as commander defines them (for config files). */
  optionsOf: (command: string) => Promise<readonly Option[]>;
  /** Runs a child program (check's tracker clients); passed in so commands never spawn directly. */
  runProcess: ProcessRunner;
  /**
   * With --findings-file: writes one finding there at once. A command that meets findings in
   * bulk streams them here (through a FindingCollector) and returns only a bounded set; the
   * CLI writes whatever it returns that was not streamed.
   */
  streamFinding?: (f: Finding) => Promise<void>;
}

export interface CommandResult {
  findings: Finding[];
  /** Machine-readable payload printed under --json. */
  data?: unknown;
  /** Human summary printed otherwise. */
  text?: string;
  /** Printed instead of `text` under --quiet (tables and hints left out); `text` when absent. */
  quietText?: string;
  thresholdFailed?: boolean;
  strict?: boolean;
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** Declare arguments and options on the commander command. */
  configure(cmd: Command): void;
  run(args: string[], options: Record<string, any>, ctx: CommandContext): Promise<CommandResult>;
}

/** Thrown for bad flags/arguments detected after parsing; maps to exit code 2. */
export class UsageError extends Error {}
