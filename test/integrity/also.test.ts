/** The smaller defects of issue 12, each at the place where it was found. */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readBoundedLines } from '../../generator/core/kernel/jsonl.js';
import { readHistory } from '../../generator/core/report/history.js';
import { readSampleFile } from '../../generator/core/logs/harness/samples.js';
import { FindingSink } from '../../generator/core/logs/sink.js';
import { emptyTally } from '../../generator/core/kernel/findings.js';
import { saveStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-also-');
const codesOf = (r: { json: any }) => r.json.findings.map((f: { code: string }) => f.code);

describe('lone UTF-16 surrogates are caught where they are read, with file and line', () => {
  it('normalize (trajectories) and audit / emit (questions)', async () => {
    const traj = path.join(dir, 'surrogate.jsonl');
    const good = readFileSync(fixtures('trajectories', 'good', 'canonical.jsonl'), 'utf8').split('\n')[0]!;
    writeFileSync(traj, `${good}\n${good.replace('Install the project', 'Install \\ud800 the project')}\n`);
    const n = await cli('normalize', traj, '--out', path.join(dir, 'n.jsonl'), '--json');
    expect(n.code).toBe(1);
    const bad = n.json.findings.find((f: { path: { line?: number } }) => f.path.line === 2);
    expect(bad?.path.file).toBe(traj);
    expect(JSON.stringify(bad.args)).toContain('surrogate');

    const q = path.join(dir, 'surrogate-questions.jsonl');
    const lines = readFileSync(fixtures('questions', 'balanced-plan.jsonl'), 'utf8').split('\n').filter(Boolean);
    lines[3] = lines[3]!.replace('"prompt":"', '"prompt":"\\udc00');
    writeFileSync(q, `${lines.join('\n')}\n`);
    const a = await cli('audit', q, '--json');
    expect(a.code).toBe(1);
    expect(a.json.findings.some((f: { path: { file?: string; line?: number } }) => f.path.file === q && f.path.line === 4)).toBe(true);
  });
});

describe('audit', () => {
  it('an empty file is not a PASS', async () => {
    const empty = path.join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const r = await cli('audit', empty, '--json');
    expect(r.code).toBe(1);
    expect(codesOf(r)).toContain('input-empty');
    const t = await cli('audit', empty);
    expect(t.stdout).not.toMatch(/PASS/);
  });
});

describe('check history', () => {
  it('a line with targets: "x" is reported as the wrong type, not as missing', async () => {
    const file = path.join(dir, 'history.jsonl');
    writeFileSync(file, `${JSON.stringify({ format: 'aptpace-check-history', version: 1, model: 'm', step: 1, modelFileSha256: 'a', targets: 'x' })}\n`);
    const read = await readHistory(nodeVfs, file);
    expect(read.findings.map((f) => [f.code, f.path.line, f.args.reason])).toEqual([['check-history-bad-line', 1, 'targets must be a list, got string']]);
  });
});

describe('harness samples', () => {
  it('Infinity and -Infinity are reported as such, not as NaN', async () => {
    const file = path.join(dir, 'samples_x.jsonl');
    const rec = (id: number, v: string) => `{"doc_id": ${id}, "doc": {}, "target": "a", "filter": "none", "acc": ${v}}`;
    writeFileSync(file, `${rec(0, 'Infinity')}\n${rec(1, '-Infinity')}\n${rec(2, 'NaN')}\n`);
    const sink = new FindingSink();
    await readSampleFile(nodeVfs, file, { metric: 'acc', filter: 'none', filterOrder: ['none'], jsonArray: false }, sink, emptyTally());
    const values = sink.findings.filter((f) => f.code === 'samples-bad-value').map((f) => f.args.value);
    expect(values).toEqual(['Infinity', '-Infinity', 'NaN']);
  });
});

describe('UTF-8', () => {
  it('a bad byte in the middle of a line is reported at its own offset', async () => {
    const file = path.join(dir, 'bad-byte.jsonl');
    writeFileSync(file, Buffer.concat([Buffer.from('{"a":1}\n{"b":"xy'), Buffer.from([0xff]), Buffer.from('z"}\n')]));
    const events = [];
    for await (const ev of readBoundedLines(nodeVfs, file, 1 << 20)) events.push(ev);
    expect(events[1]).toMatchObject({ kind: 'invalid-utf8', line: 2, offset: 16 });
    const r = await cli('inspect', file, '--json');
    const f = r.json.findings.find((x: { code: string }) => x.code === 'traj-invalid-utf8');
    expect(f.args.offset).toBe(16);
  });
});

describe('exit codes', () => {
  it('an invalid --suite is a usage error (2)', async () => {
    const r = await cli('emit', fixtures('questions', 'balanced-plan.jsonl'), '--out', path.join(dir, 's'), '--suite', 'bad suite');
    expect(r.code).toBe(2);
  });

  it('evaluate refuses an existing --out before running the LOOCV', async () => {
    const syn = syntheticPace({ models: 10, instances: 120, dims: 2, targets: 1, targetInstances: 40, seed: 'also' });
    const store = path.join(dir, 'store');
    await saveStore(nodeVfs, store, syn);
    const out = path.join(dir, 'eval');
    const args = ['evaluate', '--store', store, '--out', out, '--budget', '20', '--bootstrap', '5', '--nc-h', '2', '--nc-d', '2', '--no-nested', '--budgets', '', '--baselines', 'mean', '--max-folds', '2'];
    const first = await cli(...args);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('leave-one-model-out:');
    const again = await cli(...args);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('output-exists');
    expect(again.stderr).not.toContain('leave-one-model-out:');
  });
});
