import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A targets file keyed by other names than the store's runs (a reference `name:` vs the
 * harness's `pretrained=` name) used to be accepted silently and left fit with no pool.
 */
describe('ingest --targets naming models that are not in the store', () => {
  const setUp = (targetModels: string[]) => {
    const dir = tempDir('aptpace-targets-store-');
    writeFileSync(path.join(dir, 'wide.csv'), ['model,t/a,t/b', 'org/base-a,0.5,1', 'org/base-b,0.25,0', 'org/base-c,1,1'].join('\n'));
    writeFileSync(path.join(dir, 'targets.csv'), `model,target,score\n${targetModels.map((m, i) => `${m},swe-bench,0.${i + 1}`).join('\n')}\n`);
    return dir;
  };

  it('is a warning naming the models, and an error under --strict', async () => {
    const dir = setUp(['base-a', 'base-b', 'org/base-c']);
    const args = ['ingest', '--sources', path.join(dir, 'wide.csv'), '--table-format', 'wide', '--targets', path.join(dir, 'targets.csv'), '--json'];
    const r = await cli(...args, '--out', path.join(dir, 'store'));
    const found = r.json.findings.filter((f: any) => f.code === 'targets-model-not-in-store');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'warning', args: { target: 'swe-bench', count: 2, total: 3, models: ['base-a', 'base-b'] } });
    expect(r.code).toBe(0);
    const strict = await cli(...args, '--strict', '--out', path.join(dir, 'store-strict'));
    expect(strict.code).toBe(1);
  });

  it('says nothing when every target row names a model of the store', async () => {
    const dir = setUp(['org/base-a', 'org/base-b', 'org/base-c']);
    const r = await cli('ingest', '--sources', path.join(dir, 'wide.csv'), '--table-format', 'wide', '--targets', path.join(dir, 'targets.csv'), '--strict', '--json', '--out', path.join(dir, 'store'));
    expect(r.json.findings.map((f: any) => f.code)).not.toContain('targets-model-not-in-store');
    expect(r.code, JSON.stringify(r.json.findings)).toBe(0);
  });
});
