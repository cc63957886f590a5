import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (seconds from a full `npm test` on a busy 2-core
 * machine). Vitest's own order puts unknown files by size, which in a clean clone (CI) started
 * the docs test, the longest file, in the last third of the run; with two workers the longest
 * jobs must start first or the run ends waiting for one of them. The files listed here start
 * first, in this order; the rest follow in vitest's order.
 */
export const LONGEST_FIRST: readonly string[] = [
  'test/docs/docs.test.ts', // 847
  'test/e2e/workflow.test.ts', // 574
  'test/package/pack.test.ts', // 259
  'test/workflow/run-plan-live.test.ts', // 254
  'test/integrity/fuzz.test.ts', // 151
  'test/report/trackers.test.ts', // 115
  'test/cli/demo.test.ts', // 102
  'test/workflow/slurm.test.ts', // 76
  'test/workflow/proxy-suite.test.ts', // 69
  'test/audit/independent-adversary.test.ts', // 58
  'test/questions/reference.test.ts', // 56
  // The fast tier's longest (seconds from a fast-tier run on an idle 2-core machine).
  'test/logs/harness-oracle.test.ts', // 30
  'test/audit/rules.test.ts', // 29
  'test/audit/adversary-gate.test.ts', // 21
  'test/logs/harness-live.test.ts', // 18
  'test/pace/uncertainty.test.ts', // 14
  'test/audit/build-gate.test.ts', // 13
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
