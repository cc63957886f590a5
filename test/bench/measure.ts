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

/**
 * The generator as the installed CLI runs it: compiled JavaScript (tsc, as `npm run build`), for a
 * plain `node` process of its own, so neither the code measured nor its worker threads run through
 * a TypeScript loader (tsx adds a naming wrapper to every closure it creates), and the process's
 * peak memory is the measured code's alone. Compiled into .cache/<name> inside the repository,
 * where the compiled modules still find node_modules; returns that folder.
 */
export function compileGenerator(name: string): string {
  const out = path.join(repoRoot, '.cache', name);
  const tsc = spawnSync(process.execPath, [path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(repoRoot, 'tsconfig.build.json'), '--outDir', out], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error(`compiling the generator into ${out} failed`);
  return out;
}
