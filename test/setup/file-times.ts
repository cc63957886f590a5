import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A reporter that records what each test file really costs: its tests *and* its hooks
 * (`beforeAll` builds, harness runs), its import and setup. Vitest's JSON report times only the
 * tests, so a file whose work sits in `beforeAll` looked cheap there; the order in
 * test/setup/sequencer.ts comes from these figures. Writes .cache/test-file-times.json (seconds,
 * slowest first) and prints the slowest files after the run.
 */
export default class FileTimesReporter implements Reporter {
  private root = process.cwd();

  onInit(ctx: { config: { root: string } }): void {
    this.root = ctx.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((m) => {
        const d = m.diagnostic();
        const total = d.duration + d.collectDuration + d.setupDuration + d.prepareDuration + d.environmentSetupDuration;
        return { file: path.relative(this.root, m.moduleId), seconds: round(total), hooksAndTests: round(d.duration), collect: round(d.collectDuration) };
      })
      .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
    if (rows.length === 0) return;
    const out = path.join(this.root, '.cache', 'test-file-times.json');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(rows, null, 1)}\n`);
    const sum = rows.reduce((a, r) => a + r.seconds, 0);
    console.log(`\nslowest test files (tests + hooks + import, seconds; all ${rows.length} files: ${Math.round(sum)} s):`);
    for (const r of rows.slice(0, 12)) console.log(`${r.seconds.toFixed(1).padStart(8)}  ${r.file}`);
  }
}

const round = (ms: number) => Math.round(ms / 100) / 10;
