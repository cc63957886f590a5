import { cpSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe('aptpace ls', () => {
  it('lists the suites of a folder, a store\'s models, tasks and targets, a model file and a reference file', async () => {
    const dir = tempDir('aptpace-ls-');
    const store = path.join(dir, 'store');
    expect((await cli('ingest', '--sources', fixtures('example', 'sources'), '--targets', fixtures('example', 'targets'), '--out', store, '--quiet')).code).toBe(0);
    const fit = await cli('fit', '--store', store, '--budget', '10', '--bootstrap', '0', '--out', path.join(dir, 'fit'), '--quiet');
    expect(fit.code, fit.stderr).toBeLessThanOrEqual(1);
    const refs = ['a', 'b', 'c', 'd'].map((n, i) => `  - {name: ${n}, model: hf, model_args: pretrained=${n}, scores: {swe-bench: 0.${i + 1}}}`).join('\n');
    writeFileSync(path.join(dir, 'reference.yaml'), `references:\n${refs}\ncheckpoints:\n  - {name: step-1, model: hf, model_args: pretrained=s}\n`);
    const r = await cli('ls', path.join(repoRoot, 'dist-tasks'), store, path.join(dir, 'fit', 'model.json'), path.join(dir, 'reference.yaml'), '--json');
    expect(r.code, r.stderr).toBe(0);
    const listings = r.json.data.listings;
    expect(listings.map((l: any) => l.kind)).toEqual(['suite', 'store', 'model-file', 'reference']);
    expect(listings[0].suite).toBe('aptpace_fixtures');
    expect(listings[0].tasks).toContainEqual({ task: 'aptpace_swe_plan_mcq', documents: 6 });
    expect(listings[1].models).toContain('new-checkpoint');
    expect(listings[1].targets.length).toBeGreaterThan(0);
    expect(listings[2].targets).toEqual(listings[1].targets.map((t: any) => t.target));
    expect(Object.values(listings[2].scales).every((s) => ['fraction', 'percent', 'raw'].includes(s as string))).toBe(true);
    expect(listings[3]).toMatchObject({ references: ['a', 'b', 'c', 'd'], checkpoints: ['step-1'], targets: ['swe-bench'] });
    const text = await cli('ls', path.join(repoRoot, 'dist-tasks'));
    expect(text.stdout).toContain('suite aptpace_fixtures');
    const none = await cli('ls', path.join(dir, 'reference.yaml'), path.join(dir, 'nothing'), '--json');
    expect(none.code).toBe(1);
    expect(none.json.findings.map((f: any) => f.code)).toEqual(['ls-unrecognised']);
  }, 120_000);
});

describe('aptpace validate', () => {
  it('finds a suite file changed since emit, a bad aptpace.yaml key and a bad reference file; passes intact ones', async () => {
    const dir = tempDir('aptpace-validate-');
    const suite = path.join(dir, 'suite');
    cpSync(path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures'), suite, { recursive: true });
    writeFileSync(path.join(dir, 'aptpace.yaml'), 'format: aptpace-config/1\nfit:\n  store: store\n  budget: 10\n');
    const ok = await cli('validate', suite, path.join(dir, 'aptpace.yaml'), '--json');
    expect(ok.code, JSON.stringify(ok.json?.findings)).toBe(0);
    expect(ok.json.data.checked.map((c: any) => `${c.kind}:${c.errors}`)).toEqual(['suite:0', 'config:0']);

    writeFileSync(path.join(suite, 'data', 'aptpace_swe_plan_mcq.test.jsonl'), '{"id":"x"}\n');
    writeFileSync(path.join(dir, 'aptpace.yaml'), 'format: aptpace-config/1\nfit:\n  stor: store\n');
    writeFileSync(path.join(dir, 'reference.yaml'), 'references:\n  - {name: a, model: hf}\n');
    const bad = await cli('validate', suite, path.join(dir, 'aptpace.yaml'), path.join(dir, 'reference.yaml'), '--json');
    expect(bad.code).toBe(1);
    const codes = bad.json.findings.map((f: any) => `${f.code}:${path.basename(f.path.file ?? '')}`);
    expect(codes).toContain('validate-suite-file:aptpace_swe_plan_mcq.test.jsonl');
    expect(codes).toContain('validate-config:aptpace.yaml');
    expect(bad.json.findings.find((f: any) => f.code === 'validate-config').path.line).toBe(3);
    expect(codes.some((c: string) => c.startsWith('reference-'))).toBe(true);
  }, 120_000);
});
