/**
 * Success of a capture-the-flag run. SWE-agent's CTF mode (EnIGMA) checks every `submit <flag>`
 * against the challenge's flag: a wrong flag comes back as the observation `Wrong flag!` and the
 * run goes on; only an accepted flag ends the run with `info.exit_status` exactly `submitted`
 * and the flag in `info.submission`. Autosubmissions (`submitted (exit_cost)` …) are not checked
 * against the flag and prove nothing. So a CTF run is a proven success only when it ends with
 * the agent's own `submit` of the very flag recorded as accepted.
 */
import type { Trajectory } from './types.js';

const WRONG_FLAG = /^\s*wrong flag!?/i;

/** The flag a submit action carries: its argument without shell quotes. */
function submittedFlag(actionText: string): string | null {
  const m = /^\s*submit\s+(.+?)\s*$/s.exec(actionText);
  if (!m) return null;
  const arg = m[1]!.trim();
  const unquoted = /^(['"])(.*)\1$/s.exec(arg);
  return (unquoted ? unquoted[2]! : arg).trim() || null;
}

/**
 * Sets `success: true` (`answer_match`) on a SWE-agent CTF run whose last step submitted the
 * flag the environment accepted. Returns true when it did. Runs with other evidence, other
 * frameworks or other domains are left alone.
 */
export function applyCtfFlagEvidence(t: Trajectory): boolean {
  if (t.domain !== 'ctf' || t.source.framework !== 'swe-agent') return false;
  if (t.outcome.success !== null && t.outcome.success_source !== 'unknown' && t.outcome.success_source !== 'self_report') return false;
  if (t.outcome.exit_status !== 'submitted') return false;
  const flag = t.outcome.submission?.trim() ?? '';
  // A flag is one line; a diff or an empty submission is not a captured flag.
  if (!flag || flag.includes('\n')) return false;
  const last = t.steps[t.steps.length - 1];
  if (!last || submittedFlag(last.action.raw ?? last.action.text) !== flag) return false;
  if (last.observation && WRONG_FLAG.test(last.observation)) return false;
  t.outcome.success = true;
  t.outcome.success_source = 'answer_match';
  t.outcome.success_evidence = `${t.source.path} (CTF flag accepted: exit_status "submitted")`;
  return true;
}
