import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/setup/sequencer.js';

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Real-harness tests spawn Python; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    // Test files share their worker's module cache: most files run in a few hundred
    // milliseconds, and loading the generator afresh for each cost more than the tests
    // themselves. Tests that change the process (cwd, environment) put it back.
    isolate: false,
    // One thread per Python process (numpy, scikit-learn, torch in lm_eval): each vitest worker
    // already has a core, and a library that starts one thread per core on top of the other
    // worker's load spends its time waiting (a 10 s scikit-learn test took 114 s that way).
    // test/python-site/sitecustomize.py: every lm_eval run indexes the harness's ~14,000 built-in
    // task files before it reads ours (about 6 of a small run's 11 s); that index is kept in
    // .cache/ between runs, keyed by every built-in file's size and time, so a changed harness
    // folder is indexed afresh. A test that sets its own PYTHONPATH runs without it.
    env: {
      OMP_NUM_THREADS: '1',
      OPENBLAS_NUM_THREADS: '1',
      MKL_NUM_THREADS: '1',
      PYTHONPATH: [path.join(root, 'test', 'python-site'), process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
      APTPACE_LMEVAL_INDEX_CACHE: path.join(root, '.cache', 'lm-eval-index'),
    },
    reporters: ['default', './test/setup/file-times.ts'],
    // One fresh folder per run for the harness runs tests share (test/helpers/harness-cache.mjs).
    globalSetup: ['test/setup/global.ts'],
    // Temp folders of test/helpers/tmp.ts are removed after the file that made them.
    setupFiles: ['test/setup/temp-folders.ts'],
    // Longest files first, so neither worker ends the run alone on a long file.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
