import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const benchPython = (() => {
  const venv = path.join(repoRoot, '.venv', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
})();

/** Peak resident set size of this process so far, in MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

export async function timed<T>(fn: () => Promise<T> | T): Promise<{ result: T; seconds: number }> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return { result, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}

/** Runs a Python reference script; it must print one JSON line with its own figures. */
export function runPythonReference(script: string, args: string[] = []): Record<string, number> {
  const res = spawnSync(benchPython, ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (res.status !== 0) throw new Error(`python reference failed: ${res.stderr}`);
  const lines = res.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

export function report(name: string, figures: Record<string, number | string>): void {
  const parts = Object.entries(figures).map(([k, v]) => `${k}=${typeof v === 'number' ? +v.toFixed(3) : v}`);
  console.log(`BENCH ${name}: ${parts.join('  ')}`);
}
