/**
 * Runs the CLI once in this process: `rss-cli.ts STDOUT_FILE ARGV…`. The command's stdout goes
 * to STDOUT_FILE; this process's own stdout gets one JSON line with the exit code and the
 * peak resident set size in MiB. Tests run it as a child (`node --import tsx`) so the peak is
 * the command's own, not the test runner's.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { runCli } from '../../generator/cli/main.js';

const [stdoutFile, ...argv] = process.argv.slice(2);
const fd = openSync(stdoutFile!, 'w');
const code = await runCli(argv, { stdout: (s) => void writeSync(fd, s), stderr: () => undefined });
closeSync(fd);
process.stdout.write(`${JSON.stringify({ code, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`);
