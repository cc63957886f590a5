import { spawn } from 'node:child_process';
import type { ProcessOutcome, ProcessRunner } from '../core/kernel/process.js';

/** Output kept from a child, so a chatty client cannot fill memory. */
const MAX_CAPTURE = 1 << 20;

export const spawnProcess: ProcessRunner = (argv, options) =>
  new Promise<ProcessOutcome>((resolve) => {
    const [program, ...args] = argv;
    if (!program) return resolve({ code: null, stdout: '', stderr: '', error: 'no program named' });
    const child = spawn(program, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (outcome: ProcessOutcome) => {
      if (!settled) {
        settled = true;
        resolve(outcome);
      }
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_CAPTURE) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_CAPTURE) stderr += chunk;
    });
    child.on('error', (err) => finish({ code: null, stdout, stderr, error: err.message }));
    child.on('close', (code, signal) => finish({ code, stdout, stderr, ...(signal ? { error: `killed by ${signal}` } : {}) }));
    // A child that exits before reading its input closes the pipe; that is its exit status's business.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
  });
