import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FindingCollector } from '../../generator/core/kernel/finding-collector.js';
import { finding, type Finding } from '../../generator/core/kernel/findings.js';
import { fsFindings } from '../../generator/core/kernel/fs-findings.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe('findings of a huge bad input are bounded in memory and all in --findings-file', () => {
  it('normalize: 2,500 bad lines keep 1,000 findings of that code in --json plus a fold; the file has all 2,500, each once', async () => {
    const dir = tempDir('aptpace-findings-bounded-');
    const good = readFileSync(fixtures('trajectories', 'good', 'canonical.jsonl'), 'utf8').split('\n').filter(Boolean)[0]!;
    const input = path.join(dir, 'bad.jsonl');
    writeFileSync(input, `${good}\n${Array.from({ length: 2500 }, (_, i) => `{"broken": ${i}`).join('\n')}\n`);
    const file = path.join(dir, 'findings.jsonl');
    const r = await cli('normalize', input, '--out', path.join(dir, 'out.jsonl'), '--findings-file', file, '--json', '--quiet');
    expect(r.code).toBe(1);
    const inFile = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Finding);
    const bulk = inFile[0]!.code;
    expect(inFile.filter((f) => f.code === bulk)).toHaveLength(2500);
    expect(new Set(inFile.map((f) => `${f.code}:${f.path.line}`)).size).toBe(inFile.length);
    expect(inFile.some((f) => f.code === 'findings-folded')).toBe(false);
    const held = r.json.findings as Finding[];
    expect(held.filter((f) => f.code === bulk)).toHaveLength(1000);
    expect(held.find((f) => f.code === 'findings-folded')?.args).toEqual({ code: bulk, count: 1500, kept: 1000 });
    expect(r.json.data.tally).toMatchObject({ read: 2501, accepted: 1, rejected: 2500 });
  });

  it('ingest read in this thread: 3,000 bad samples lines hold 20 and a fold, the file lists all 3,000 once', async () => {
    const dir = tempDir('aptpace-findings-ingest-');
    const logs = path.join(dir, 'logs');
    cpSync(fixtures('logs', 'harness-output'), logs, { recursive: true });
    const model = path.join(logs, 'out', 'model-b');
    const samples = path.join(model, readdirSync(model).find((f) => f.startsWith('samples_aptd_mc_'))!);
    writeFileSync(samples, `${readFileSync(samples, 'utf8')}${Array.from({ length: 3000 }, (_, i) => `{"broken": ${i}`).join('\n')}\n`);
    const file = path.join(dir, 'findings.jsonl');
    const r = await cli('ingest', logs, '--out', path.join(dir, 'store'), '--findings-file', file, '--json', '--quiet');
    expect(r.code).toBe(1);
    const inFile = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Finding);
    expect(inFile.filter((f) => f.code === 'samples-bad-json').map((f) => f.path.line)).toHaveLength(3000);
    expect(new Set(inFile.map((f) => JSON.stringify([f.code, f.path, f.args]))).size).toBe(inFile.length);
    const held = r.json.findings as Finding[];
    expect(held.filter((f) => f.code === 'samples-bad-json')).toHaveLength(20);
    expect(held.filter((f) => f.code === 'findings-folded').map((f) => ({ file: f.path.file, ...f.args }))).toEqual([{ file: samples, code: 'samples-bad-json', count: 2980, kept: 20 }]);
  });

  it('--json output is exactly JSON.stringify of the result, with and without findings', async () => {
    const r = await cli('inspect', fixtures('trajectories', 'good', 'canonical.jsonl'), '--json');
    expect(r.stdout).toBe(`${JSON.stringify(r.json, null, 2)}\n`);
    const dir = tempDir('aptpace-findings-json-');
    const input = path.join(dir, 'bad.jsonl');
    writeFileSync(input, '{"x": 1}\nnot json\n');
    const bad = await cli('inspect', input, '--json');
    expect(bad.json.findings.length).toBeGreaterThan(0);
    expect(bad.stdout).toBe(`${JSON.stringify(bad.json, null, 2)}\n`);
  });
});

describe('FindingCollector', () => {
  const f = (code: string, line: number) => ({ ...finding(fsFindings, 'fs-missing', { line }, { path: 'x' }), code });

  it('passes every finding on, holds the first N per code, folds the rest, never folds keepAll codes', async () => {
    const seen: Finding[] = [];
    const c = new FindingCollector({ keepPerCode: 2, keepAll: new Set(['kept']), onFinding: (x) => void seen.push(x) });
    for (let i = 0; i < 5; i++) await c.add(f('bulk', i));
    for (let i = 0; i < 4; i++) await c.add(f('kept', i));
    expect(seen).toHaveLength(9);
    expect(c.total).toBe(9);
    const out = c.findings();
    expect(out.filter((x) => x.code === 'bulk').map((x) => x.path.line)).toEqual([0, 1]);
    expect(out.filter((x) => x.code === 'kept')).toHaveLength(4);
    expect(out.filter((x) => x.code === 'findings-folded').map((x) => x.args)).toEqual([{ code: 'bulk', count: 3, kept: 2 }]);
  });

  it('per file: each file keeps its own first N; onOverflow gets only the rest; a handed-on fold adds to the count', async () => {
    const g = (file: string, line: number) => ({ ...f('bulk', line), path: { file, line } });
    const overflow: Finding[] = [];
    const inner = new FindingCollector({ perFile: true, keepPerCode: 2, onOverflow: (x) => void overflow.push(x) });
    for (let i = 0; i < 5; i++) await inner.add(g('a', i));
    await inner.add(g('b', 0));
    expect(overflow.map((x) => x.path.line)).toEqual([2, 3, 4]);
    const all: Finding[] = [];
    const outer = new FindingCollector({ perFile: true, keepPerCode: 2, onFinding: (x) => void all.push(x) });
    for (const x of inner.findings()) await outer.add(x);
    expect(all.map((x) => `${x.path.file}:${x.path.line}`)).toEqual(['a:0', 'a:1', 'b:0']);
    expect(outer.total).toBe(6);
    expect(outer.findings().filter((x) => x.code === 'findings-folded').map((x) => ({ file: x.path.file, ...x.args }))).toEqual([{ file: 'a', code: 'bulk', count: 3, kept: 2 }]);
  });
});
