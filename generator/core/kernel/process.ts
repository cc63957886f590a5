/** The outcome of a child process the CLI ran for a command. */
export interface ProcessOutcome {
  /** Exit status; null when the process could not be started or was killed (see `error`). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why the process did not run to an exit status (not found, killed by a signal). */
  error?: string;
}

/**
 * Runs a program with `input` on stdin. Passed in by the CLI, so the core never spawns a
 * process itself and tests can answer in its place.
 */
export type ProcessRunner = (argv: readonly string[], options: { input: string; env?: Record<string, string>; cwd?: string }) => Promise<ProcessOutcome>;
