import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `../shared/data` beside the clone; tests that need it skip cleanly when absent. */
export const sharedData = path.resolve(repoRoot, '..', 'shared', 'data');
export const hasSharedData = existsSync(sharedData);
export function shared(...parts: string[]): string {
  return path.join(sharedData, ...parts);
}

export const fixtures = (...parts: string[]) => path.join(repoRoot, 'fixtures', ...parts);

/**
 * The Python virtualenv `.ci/run` creates (lm-eval, numpy, scipy, scikit-learn).
 * Locally the real-harness tests skip without it; under CI its absence is a failure.
 */
export const venvBin = process.env.APTPACE_VENV_BIN ?? path.join(repoRoot, '.venv', 'bin');
export const python = path.join(venvBin, 'python');
export const lmEval = path.join(venvBin, 'lm_eval');
export const hasPython = existsSync(python);
export const hasLmEval = existsSync(lmEval);
export const inCi = process.env.CI === 'true';

/** Offline, deterministic environment for harness runs. */
export const harnessEnv = {
  ...process.env,
  HF_HUB_OFFLINE: '1',
  HF_DATASETS_OFFLINE: '1',
  TRANSFORMERS_OFFLINE: '1',
  TOKENIZERS_PARALLELISM: 'false',
  PYTHONHASHSEED: '0',
};
