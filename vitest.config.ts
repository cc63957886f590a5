import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Real-harness tests spawn Python; keep parallelism modest on 2-core machines.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
