/**
 * The slow tier: test files `npm run test:fast` leaves out (the full `npm test` runs them all).
 * Each spends most of its time in the real harness on many tasks, a browser, the packed
 * tarball, the whole pipeline, or builds of the shared real data; the fast tier keeps the units,
 * the real-harness smoke tests (test/emit/harness-run, test/logs/harness-live,
 * test/workflow/run-plan) and the oracle/anti-oracle models (test/logs/harness-oracle).
 * test/tiers.test.ts checks that every entry names an existing file.
 */
export const SLOW_TESTS: readonly string[] = [
  'test/docs/docs.test.ts',
  'test/e2e/loop.test.ts',
  'test/e2e/ladder.test.ts',
  'test/e2e/workflow.test.ts',
  'test/cli/demo.test.ts',
  'test/package/pack.test.ts',
  'test/workflow/slurm.test.ts',
  'test/workflow/run-plan-live.test.ts',
  'test/integrity/fuzz.test.ts',
  'test/integrity/bounded-findings.test.ts',
  'test/emit/harness-load.test.ts',
  'test/workflow/proxy-suite.test.ts',
  'test/workflow/proxy-suite-pace.test.ts',
  'test/logs/suite-shards-live.test.ts',
  'test/emit/cjk-scoring.test.ts',
  'test/emit/ctf-suite.test.ts',
  'test/emit/new-kinds.test.ts',
  'test/emit/zh-build-harness.test.ts',
  'test/emit/harness-install.test.ts',
  'test/emit/harness-compat.test.ts',
  'test/emit/harness-checkout.test.ts',
  'test/emit/harness-samples.test.ts',
  'test/emit/pipeline.test.ts',
  'test/questions/new-kinds-real.test.ts',
  'test/questions/long-context.test.ts',
  'test/pace/leak.test.ts',
  'test/review/browser.test.ts',
  'test/review/chromium.test.ts',
  'test/report/trackers.test.ts',
  // Builds of the shared real data and the scikit-learn adversary: integration, not units.
  'test/audit/adversary-gate.test.ts',
  'test/questions/adversary-cues.test.ts',
  'test/audit/independent-adversary.test.ts',
  'test/questions/reference.test.ts',
  'test/audit/build-gate.test.ts',
  // Two cold indexes of the harness's built-in tasks (the test run's index cache checked against them).
  'test/python/index-cache.test.ts',
];
