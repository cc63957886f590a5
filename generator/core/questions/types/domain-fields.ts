import type { Trajectory } from '../../trajectories/types.js';

/**
 * Template field of a capture-the-flag run: the SWE kinds' templates then say "capture the
 * flag" where they would say "fix the issue". Absent (not `false`) for other runs, so their
 * drafts, and with them their prompts, stay exactly as before.
 */
export function ctfField(t: Trajectory): { ctf?: true } {
  return t.domain === 'ctf' ? { ctf: true } : {};
}
