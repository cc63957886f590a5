import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasLmEval, inCi, repoRoot, sharedData, venvBin } from '../helpers/env.js';
import { sharedHarnessBin } from '../helpers/harness-cache.js';
import { tempDir } from '../helpers/tmp.js';
import { shellBlocks, type DocBlock } from './blocks.js';

/**
 * Docs are tested: every shell block in README.md and docs/*.md runs here, in order per file,
 * in a scratch folder that looks like a checkout (fixtures, templates, dist-tasks and the built
 * CLI linked in, `../shared` beside it when present). `aptpace` on PATH is the built CLI
 * (`npm test` builds it first) and `python` is the test virtualenv's. `lm_eval` is the
 * virtualenv's behind test/helpers/harness-cache.mjs: a harness job test/e2e/workflow.test.ts
 * also runs (the same suite, model, seed and shard, byte for byte) runs once per test run and
 * both get what it wrote.
 */
const docFiles = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const LINKED = ['fixtures', 'templates', 'dist-tasks', 'build', 'generator', 'node_modules', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', '.venv'];

function sandbox(): { cwd: string; env: NodeJS.ProcessEnv } {
  const parent = tempDir('aptpace-docs-');
  const cwd = path.join(parent, 'checkout');
  mkdirSync(cwd);
  for (const name of LINKED) if (existsSync(path.join(repoRoot, name))) symlinkSync(path.join(repoRoot, name), path.join(cwd, name));
  if (existsSync(sharedData)) symlinkSync(path.dirname(sharedData), path.join(parent, 'shared'));
  const bin = path.join(parent, 'bin');
  mkdirSync(bin);
  const shim = path.join(bin, 'aptpace');
  writeFileSync(shim, `#!/bin/sh\nexec node "${path.join(repoRoot, 'build', 'generator', 'cli', 'main.js')}" "$@"\n`);
  chmodSync(shim, 0o755);
  if (existsSync(path.join(venvBin, 'python'))) symlinkSync(path.join(venvBin, 'python'), path.join(bin, 'python'));
  const harnessBin = existsSync(path.join(venvBin, 'lm_eval')) ? `${sharedHarnessBin(parent)}:` : '';
  const env = { ...process.env, PATH: `${bin}:${harnessBin}${process.env.PATH}`, HF_HUB_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', NO_COLOR: '1', PYTHONHASHSEED: '0' };
  return { cwd, env };
}

function run(block: DocBlock, cwd: string, env: NodeJS.ProcessEnv) {
  return spawnSync('bash', ['-e', '-o', 'pipefail', '-c', block.script], { cwd, env, encoding: 'utf8', timeout: 600_000, maxBuffer: 64 << 20 });
}

const needsShared = (b: DocBlock) => /\.\.\/shared\b|\$S\b/.test(b.script);
const needsHarness = (b: DocBlock) => /\blm_eval\b/.test(b.script);

for (const file of docFiles) {
  const blocks = shellBlocks(file, readFileSync(path.join(repoRoot, file), 'utf8'));
  if (blocks.length === 0) continue;
  describe(`docs: ${file}`, () => {
    // One scratch checkout per doc: later blocks of a doc may use what earlier ones wrote.
    let box: ReturnType<typeof sandbox> | undefined;
    for (const block of blocks) {
      const title = `${file}:${block.line}${block.skip ? ` (not run: ${block.skip})` : ''}`;
      const unavailable = (needsShared(block) && !existsSync(sharedData)) || (needsHarness(block) && !hasLmEval && !inCi);
      if (block.skip) {
        // A marked block is not run; what is checked is that the marker says what it needs.
        it(title, () => expect(block.skip).toMatch(/\b(needs|names|runs|installs)\b/));
        continue;
      }
      it.skipIf(unavailable)(title, () => {
        box ??= sandbox();
        const res = run(block, box.cwd, box.env);
        const detail = `${title}\n$ ${block.script}\n--- stdout\n${res.stdout?.slice(-4000)}\n--- stderr\n${res.stderr?.slice(-4000)}`;
        expect(res.status, detail).toBe(block.expectExit);
      }, 600_000);
    }
  });
}

describe('docs-test markers', () => {
  it('parses skip and exit markers and rejects unknown ones', () => {
    const text = ['<!-- docs-test: skip (needs a GPU) -->', '```sh', 'lm_eval --model hf', '```', '', '<!-- docs-test: exit 1 -->', '', '```bash', 'false', '```', '```sh', 'true', '```'].join('\n');
    expect(shellBlocks('x.md', text)).toEqual([
      { file: 'x.md', line: 2, script: 'lm_eval --model hf', skip: 'needs a GPU', expectExit: 0 },
      { file: 'x.md', line: 8, script: 'false', expectExit: 1 },
      { file: 'x.md', line: 11, script: 'true', expectExit: 0 },
    ]);
    expect(() => shellBlocks('y.md', '<!-- docs-test: maybe -->\n```sh\ntrue\n```')).toThrow(/unknown docs-test directive/);
  });
});
