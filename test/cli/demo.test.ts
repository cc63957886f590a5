/**
 * The main job a newcomer runs first (`npm run demo`), run as they run it: every step exits 0,
 * the step headers read as lines (no escaped "\n"), and the question audit is printed once —
 * by its own step, not again by build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe('aptpace demo', () => {
  it('runs every step once, prints the audit once and readable step headers', () => {
    const out = path.join(tempDir('aptpace-demo-'), 'demo');
    const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'generator', 'cli', 'main.ts'), 'demo', '--out', out], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const all = `${res.stdout}\n${res.stderr}`;
    expect(res.status, all.slice(-2000)).toBe(0);
    expect(all.match(/^audit of \d+ questions in \d+ task\(s\)/gm)).toHaveLength(1);
    // build audits too unless told not to; the demo's build must not repeat the audit step's findings.
    const auditLines = all.split('\n').filter((l) => /^(error|warning|info)\[audit-/.test(l));
    expect(auditLines.length).toBeGreaterThan(0);
    expect(new Set(auditLines).size).toBe(auditLines.length);
    expect(all).not.toContain('\\n[');
    const headers = all.match(/^\[(\d+)\/(\d+)\] /gm) ?? [];
    expect(headers.length).toBeGreaterThan(5);
    expect(headers).toHaveLength(Number(/^\[\d+\/(\d+)\]/m.exec(all)![1]));
    expect(existsSync(path.join(out, 'report', 'report.html'))).toBe(true);
  }, 600_000);
});
