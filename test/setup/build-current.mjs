// Whether build/ (tsc -p tsconfig.build.json) is current: every generator/*.ts has its
// build/generator/*.js (and every generator/*.json its copy), written after the source and after the compiler settings and the
// package files. `npm ci` builds (the `prepare` script), so the test run's pretest and the pack
// test reuse that build instead of compiling the same sources again.
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';

/** @param {string} root the checkout */
export function buildIsCurrent(root) {
  const settings = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'].filter((f) => existsSync(path.join(root, f))).map((f) => statSync(path.join(root, f)).mtimeMs);
  // .ts sources and the JSON files they import (tsc copies those into build/ too).
  const sources = readdirSync(path.join(root, 'generator'), { recursive: true }).map(String).filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f.endsWith('.json'));
  return (
    sources.length > 0 &&
    sources.every((f) => {
      const js = path.join(root, 'build', 'generator', f.replace(/\.ts$/, '.js'));
      if (!existsSync(js)) return false;
      const built = statSync(js).mtimeMs;
      return built >= statSync(path.join(root, 'generator', f)).mtimeMs && settings.every((m) => built >= m);
    })
  );
}
