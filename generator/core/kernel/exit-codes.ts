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

/** The one place that decides the process exit code. */
export function exitCodeFor(outcome: Outcome): ExitCode {
  if (outcome.crashed) return ExitCode.crash;
  if (outcome.usageError) return ExitCode.usage;
  const failing = (outcome.findings ?? []).some(
    (f) => f.severity === 'error' || (outcome.strict === true && f.severity === 'warning'),
  );
  if (failing || outcome.thresholdFailed) return ExitCode.findings;
  return ExitCode.ok;
}
