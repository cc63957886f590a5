/** Names and values from files anyone can write, at the places a person reads them. */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-hostile-');
const EVIL_TARGET = '<script>alert(1)</script>\u001b]0;owned\u0007\u001b[31m';
const EVIL_MODEL = 'ckpt\nPASS every-target: all thresholds met';

async function hostileStore(): Promise<string> {
  const syn = syntheticPace({ models: 12, instances: 300, dims: 1, targets: 1, targetInstances: 50, seed: 'hostile' });
  const last = syn.matrix.models.length - 1;
  const matrix = { ...syn.matrix, models: syn.matrix.models.map((m, i) => (i === last ? { ...m, name: EVIL_MODEL } : m)) };
  const targets = syn.targets.map((t) => ({ ...t, target: EVIL_TARGET }));
  const store = path.join(dir, 'store');
  await saveStore(nodeVfs, store, { matrix, targets });
  return store;
}

describe('hostile names', () => {
  it('loocv.md shows a target name as text: no raw HTML, no terminal control sequences', async () => {
    const store = await hostileStore();
    const r = await cli('evaluate', '--store', store, '--no-nested', '--bootstrap', '0', '--out', path.join(dir, 'eval'), '--quiet');
    expect(r.code, r.stderr).toBe(0);
    const md = readFileSync(path.join(dir, 'eval', 'loocv.md'), 'utf8');
    expect(md).not.toMatch(/(^|[^\\])<script/);
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(md).toContain('\\<script>alert(1)\\</script>');
  }, 120_000);

  it('a newline in a checkpoint name cannot print a forged PASS line', async () => {
    const store = path.join(dir, 'store');
    expect((await cli('fit', '--store', store, '--bootstrap', '0', '--out', path.join(dir, 'fit'), '--quiet')).code).toBe(0);
    const r = await cli('check', '--model-file', path.join(dir, 'fit', 'model.json'), '--model', EVIL_MODEL, '--store', store, '--out', path.join(dir, 'report'));
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => /^PASS\b/.test(l)).length).toBeLessThanOrEqual(1);
    expect(lines.some((l) => l.startsWith('PASS every-target'))).toBe(false);
    expect(r.stdout).toContain('ckpt\\nPASS every-target');
  }, 120_000);

  it('a fit setting that is not a finite number is a usage error, never the default', async () => {
    const config = path.join(dir, 'config.json');
    writeFileSync(config, '{"agentic-0": {"budget": 1e309}}');
    const r = await cli('fit', '--store', path.join(dir, 'store'), '--config', config, '--out', path.join(dir, 'fit-inf'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('budget must be a finite number (got Infinity)');
  });
});
