// `npm test` / `npm run test:fast` run this first: the Python virtualenv check
// (ensure-python.mjs), the type check of everything (tsconfig.json, no output) and the build of
// the CLI that the docs, package and subprocess tests run (tsconfig.build.json → build/), at the
// same time rather than one after another; the build only when build/ is not current
// (build-current.mjs: `npm ci` has just built it in CI). The type check keeps its incremental state in
// .cache/, so a second run with no change takes seconds; the build is always a full build.
// Exits non-zero when any of the three fails, after all three have finished.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './build-current.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const steps = [
  ['python venv', [path.join(root, 'test', 'setup', 'ensure-python.mjs')]],
  ['type check', [tsc, '-p', 'tsconfig.json', '--noEmit', '--incremental', '--tsBuildInfoFile', path.join('.cache', 'tsc', 'check.tsbuildinfo')]],
  ...(buildIsCurrent(root) ? [] : [['build', [tsc, '-p', 'tsconfig.build.json']]]),
];
if (steps.length < 3) console.error('pretest: build/ is current with generator/ (built by npm ci or an earlier run); not building it again');
const results = await Promise.all(
  steps.map(
    ([name, args]) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
        child.on('error', (e) => resolve([name, `${e.message}`]));
        child.on('close', (code, signal) => resolve([name, code === 0 ? null : `exit ${code ?? signal}`]));
      }),
  ),
);
const failed = results.filter(([, why]) => why);
for (const [name, why] of failed) console.error(`pretest: ${name} failed (${why})`);
process.exit(failed.length ? 1 : 0);
