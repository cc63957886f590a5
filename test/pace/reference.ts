/**
 * Runs a Python reference (numpy / scipy / scikit-learn in the project venv) on JSON input
 * given on stdin and returns the JSON it prints. One call per test file keeps the slow
 * imports to a minimum on small CI machines.
 */
import { spawnSync } from 'node:child_process';
import { hasPython, inCi, python } from '../helpers/env.js';

/** Reference tests run when the venv exists; in CI its absence is a failure, not a skip. */
export const skipPython = !hasPython && !inCi;

export function runReference(script: string, input: unknown): any {
  const res = spawnSync(python, ['-c', script], { input: JSON.stringify(input), encoding: 'utf8', maxBuffer: 1 << 28 });
  if (res.status !== 0) throw new Error(`python reference failed (${res.status}): ${res.stderr}`);
  return JSON.parse(res.stdout);
}
