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
