import { runCli } from '../../generator/cli/main.js';

/** Runs the CLI in-process and captures its output and exit code. */
export async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  let json: any;
  if (argv.includes('--json')) {
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
  }
  return { code, stdout, stderr, json };
}

/** `cli` run from `dir` (the working directory is restored afterwards, also on failure). */
export async function cliIn(dir: string, ...argv: string[]): ReturnType<typeof cli> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    return await cli(...argv);
  } finally {
    process.chdir(cwd);
  }
}
