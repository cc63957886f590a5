import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/setup/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Real-harness tests spawn Python; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    reporters: ['default'],
    // One fresh folder per run for the harness runs tests share (test/helpers/harness-cache.mjs).
    globalSetup: ['test/setup/global.ts'],
    // Longest files first, so neither worker ends the run alone on a long file.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
