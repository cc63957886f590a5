import type { Finding } from './findings.js';

export const ExitCode = {
  ok: 0,
  findings: 1,
  usage: 2,
  crash: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export interface Outcome {
  usageError?: boolean;
  crashed?: boolean;
  findings?: readonly Finding[];
  /** A user threshold (e.g. --min-score) was not met. */
  thresholdFailed?: boolean;
  /** --strict: warnings count as failure too. */
  strict?: boolean;
}

/**
 * Findings about how the command was called rather than about the data: an output that
 * already exists (pass --force or another path) is a usage error wherever it is found.
 */
const USAGE_FINDINGS = new Set(['output-exists']);

/** The one place that decides the process exit code. */
export function exitCodeFor(outcome: Outcome): ExitCode {
  if (outcome.crashed) return ExitCode.crash;
  if (outcome.usageError || (outcome.findings ?? []).some((f) => USAGE_FINDINGS.has(f.code))) return ExitCode.usage;
  const failing = (outcome.findings ?? []).some(
    (f) => f.severity === 'error' || (outcome.strict === true && f.severity === 'warning'),
  );
  if (failing || outcome.thresholdFailed) return ExitCode.findings;
  return ExitCode.ok;
}
