import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';
import { SLOW_TESTS } from './test/tiers.js';

/** `npm run test:fast`: the units and the real-harness smoke tests; `npm test` runs everything. */
export default mergeConfig(base, defineConfig({ test: { exclude: ['**/node_modules/**', ...SLOW_TESTS] } }));
