// Runs before `npm test`: makes sure the Python virtualenv the real-harness and numerical
// reference tests use exists (.venv, ignored by git), with ruff for the Python lint test and the
// W&B and MLflow clients for the tracker test (offline). One-time cost of a minute or two;
// later runs find it and return at once. APTPACE_SKIP_PYTHON=1 skips it (those tests then
// skip locally; under CI=true they fail instead).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const venv = path.join(root, '.venv');
const requirements = ['lm-eval==0.4.13', 'numpy', 'scipy', 'scikit-learn', 'ruff', 'wandb==0.31.0', 'mlflow-skinny==3.17.2'];
const probe = 'import lm_eval, numpy, scipy, sklearn, wandb, mlflow';

if (process.env.APTPACE_SKIP_PYTHON === '1') process.exit(0);

const venvPython = path.join(venv, 'bin', 'python');
const ready = existsSync(path.join(venv, 'bin', 'lm_eval')) && existsSync(path.join(venv, 'bin', 'ruff')) && spawnSync(venvPython, ['-c', probe]).status === 0;
if (ready) process.exit(0);

const run = (cmd, args) => {
  console.error(`$ ${cmd} ${args.join(' ')}`);
  const res = spawnSync(cmd, args, { stdio: 'inherit' });
  if (res.status !== 0) {
    console.error(`Python setup failed (${cmd} exited ${res.status}). Set APTPACE_SKIP_PYTHON=1 to run the Node-only tests.`);
    process.exit(1);
  }
};
const systemPython = process.env.PYTHON ?? 'python3';
if (!existsSync(venvPython)) run(systemPython, ['-m', 'venv', venv]);
run(venvPython, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...requirements]);
