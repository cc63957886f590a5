import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first: seconds from the clean-clone CI run of 2026-12-03,
 * each file's tests *and* hooks (a `beforeAll` that runs the harness counts; the JSON report's
 * per-file times leave hooks out, test/setup/file-times.ts records both). Vitest's own order puts
 * unknown files by size, which in a clean clone (CI) started the docs test, the longest file, in
 * the last third of the run; with two workers the longest jobs must start first or the run ends
 * waiting for one of them. The files listed here start first, in this order; the rest follow in
 * vitest's order.
 */
export const LONGEST_FIRST: readonly string[] = [
  'test/docs/docs.test.ts', // 365
  'test/e2e/workflow.test.ts', // 156
  'test/workflow/run-plan-live.test.ts', // 131
  'test/cli/demo.test.ts', // 118
  'test/package/pack.test.ts', // 104
  'test/logs/suite-shards-live.test.ts', // 63
  'test/integrity/torn.test.ts', // 61
  'test/integrity/fuzz.test.ts', // 55
  'test/integrity/bounded-findings.test.ts', // 46
  'test/workflow/slurm.test.ts', // 43
  'test/audit/rules.test.ts', // 39
  'test/audit/adversary-gate.test.ts', // 30
  'test/report/pages.test.ts', // 29
  'test/questions/substitution-defects.test.ts', // 28
  'test/emit/harness-load.test.ts', // 28
  'test/audit/adversary.test.ts', // 27
  'test/integrity/crashes.test.ts', // 27
  'test/emit/zh-build-harness.test.ts', // 26
  // The fast tier's longest (seconds from a fast-tier run on a busy 2-core machine, hooks included).
  'test/logs/harness-oracle.test.ts', // 132
  'test/logs/harness-live.test.ts', // 105
  'test/pace/uncertainty.test.ts', // 35
  'test/emit/harness-run.test.ts', // 33
  'test/integrity/sets.test.ts', // 28
  'test/pace/family.test.ts', // 27
];

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rest = await super.sort(files);
    const root = `${files[0]?.project.config.root ?? ''}/`;
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FIRST.indexOf(f.moduleId.startsWith(root) ? f.moduleId.slice(root.length) : f.moduleId);
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    // Array.prototype.sort is stable: unlisted files keep vitest's order.
    return rest.sort((a, b) => rank(a) - rank(b));
  }
}
