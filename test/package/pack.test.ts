import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inCi, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { buildIsCurrent } from '../setup/build-current.mjs';

/**
 * The packaged install, as a user gets it: `npm pack` the checkout, install the tarball into
 * an empty folder, and run the demo from there. It fails when a file the CLI needs at run time
 * (templates, example data, mappings, configs the docs name) is missing from `files`.
 * Needs the npm registry (or npm's cache) for the dependencies; runs in CI and with
 * APTPACE_PACK_TEST=1.
 */
describe.skipIf(!inCi && process.env.APTPACE_PACK_TEST !== '1')('npm pack → install → aptpace demo', () => {
  it('runs the demo and the shipped-file docs examples from an installed tarball', () => {
    const work = tempDir('aptpace-pack-');
    // `npm pack` runs `prepare` (the build) first, unless build/ is current (npm ci or the
    // pretest step built it from these sources): then that build is packed without compiling again.
    const pack = spawnSync('npm', ['pack', '--silent', ...(buildIsCurrent(repoRoot) ? ['--ignore-scripts'] : []), '--pack-destination', work], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const app = path.join(work, 'app');
    spawnSync('mkdir', [app]);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'pack-test', version: '1.0.0', private: true }));
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, tarball!)], { cwd: app, encoding: 'utf8', timeout: 600_000 });
    expect(install.status, install.stderr).toBe(0);
    const bin = path.join(app, 'node_modules', '.bin', 'aptpace');
    expect(existsSync(bin)).toBe(true);
    const demo = spawnSync(bin, ['demo', '--out', 'demo-out', '--quiet'], { cwd: app, encoding: 'utf8', timeout: 600_000 });
    expect(demo.status, `${demo.stdout}\n${demo.stderr}`).toBe(0);
    expect(existsSync(path.join(app, 'demo-out', 'report', 'report.html'))).toBe(true);
    // Files the docs tell users to pass, resolved inside the installed package.
    const pkg = path.join(app, 'node_modules', 'aptpace');
    for (const shipped of ['fixtures/logs/openhands-to-pace-mapping.json', 'fixtures/pace/pace-frozen-c100.json', 'dist-tasks/aptpace_fixtures', 'templates/suite']) {
      expect(existsSync(path.join(pkg, shipped)), shipped).toBe(true);
    }
  }, 900_000);
});
