import { spawnSync } from 'node:child_process';
import { python } from '../helpers/env.js';

/** Runs a Python snippet in the project venv with `stdin` as its input and returns its JSON stdout. */
export function runPythonText<T>(code: string, stdin: string): T {
  const result = spawnSync(python, ['-c', code], { input: stdin, encoding: 'utf8', timeout: 60_000, maxBuffer: 256 << 20 });
  if (result.status !== 0) throw new Error(`python failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Same, with a JSON value on stdin. */
export function runPython<T>(code: string, input: unknown): T {
  return runPythonText<T>(code, JSON.stringify(input));
}
