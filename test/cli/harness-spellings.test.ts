import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessSpellings } from '../../generator/cli/aliases.js';
import { cli } from '../helpers/cli.js';
import { repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe("lm-eval's snake_case spellings", () => {
  it('map to the command\'s own flags where the concept is the same, and nowhere else', () => {
    const longs = new Set(['--out', '--suite', '--max-missing', '--json']);
    expect(harnessSpellings(['plan', '--output_path', 'p', '--include_path=s', '--max_missing', '0.1', '--model_args', 'x', '--', '--output_path'], longs)).toEqual([
      'plan', '--out', 'p', '--suite=s', '--max-missing', '0.1', '--model_args', 'x', '--', '--output_path',
    ]);
    expect(harnessSpellings(['emit', '--output_path', 'p'], new Set(['--suite']))).toEqual(['emit', '--output_path', 'p']);
  });

  it('ingest --output_path and plan --include_path/--output_path run as --out and --suite', async () => {
    const dir = tempDir('aptpace-spellings-');
    writeFileSync(path.join(dir, 'wide.csv'), 'model,t/a,t/b\nm1,0.5,1\nm2,0,1\n');
    const ingest = await cli('ingest', '--sources', path.join(dir, 'wide.csv'), '--table_format', 'wide', '--output_path', path.join(dir, 'store'), '--quiet');
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'store'))).toBe(true);
    const refs = ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ${n}, model: hf, model_args: pretrained=${n}, scores: {s: 0.${i + 1}}}`).join('\n');
    writeFileSync(path.join(dir, 'reference.yaml'), `references:\n${refs}\n`);
    const plan = await cli('plan', '--reference', path.join(dir, 'reference.yaml'), '--include_path', path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures'), '--output_path', path.join(dir, 'plans'), '--quiet');
    expect(plan.code, plan.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'plans', 'run.sh'))).toBe(true);
  });

  it('an unknown snake_case flag is a usage error with a hint about the spelling', async () => {
    const r = await cli('ingest', '--sources', 'x.csv', '--out_dir', 'y');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('hint: aptpace spells flags in kebab-case (--out-dir)');
  });
});
