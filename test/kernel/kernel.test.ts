import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { exitCodeFor } from '../../generator/core/kernel/exit-codes.js';
import { readJsonlValues, readLines } from '../../generator/core/kernel/jsonl.js';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { OutputFolder, OutputError } from '../../generator/core/kernel/output.js';
import { stableStringify, contentId } from '../../generator/core/kernel/stable-json.js';
import { finding } from '../../generator/core/kernel/findings.js';
import { kernelFindings } from '../../generator/core/catalog.js';
import { cli } from '../helpers/cli.js';

describe('Rng', () => {
  it('is reproducible per seed and differs across seeds', () => {
    const a = new Rng('s1');
    const b = new Rng('s1');
    const c = new Rng('s2');
    const sa = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.nextUint32())).not.toEqual(sa);
  });
  it('int() is roughly uniform', () => {
    const r = new Rng(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40000; i++) counts[r.int(4)]!++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(400);
  });
  it('shuffle is a permutation', () => {
    const out = new Rng('x').shuffle([1, 2, 3, 4, 5, 6]);
    expect([...out].sort()).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('exitCodeFor', () => {
  const err = finding(kernelFindings, 'no-inputs', {}, { patterns: 'x' });
  const warn = { ...err, severity: 'warning' as const };
  it('maps outcomes to 0/1/2/3', () => {
    expect(exitCodeFor({})).toBe(0);
    expect(exitCodeFor({ findings: [warn] })).toBe(0);
    expect(exitCodeFor({ findings: [warn], strict: true })).toBe(1);
    expect(exitCodeFor({ findings: [err] })).toBe(1);
    expect(exitCodeFor({ thresholdFailed: true })).toBe(1);
    expect(exitCodeFor({ usageError: true, findings: [err] })).toBe(2);
    expect(exitCodeFor({ crashed: true, usageError: true })).toBe(3);
  });
});

describe('readLines', () => {
  it('numbers lines, flags an unterminated last line and bad UTF-8 per line', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"a":1}\r\n'), 0xff, 0xfe, 0x0a, ...new TextEncoder().encode('{"b":')]);
    const vfs = new MemoryVfs({ '/f.jsonl': bytes });
    const events = [];
    for await (const e of readLines(vfs, '/f.jsonl')) events.push(e);
    expect(events).toEqual([
      { kind: 'line', line: 1, text: '{"a":1}', offset: 0, terminated: true },
      { kind: 'invalid-utf8', line: 2, offset: 9 },
      { kind: 'line', line: 3, text: '{"b":', offset: 12, terminated: false },
    ]);
  });
  it('joins lines split across chunks', async () => {
    const vfs = new MemoryVfs({ '/f': 'x'.repeat(70000) + '\nyz\n' });
    const lines = [];
    for await (const e of readLines(vfs, '/f')) if (e.kind === 'line') lines.push(e.text.length);
    expect(lines).toEqual([70000, 2]);
  });
});

describe('readJsonlValues', () => {
  it('parses non-blank lines and reports bad ones as events with their line numbers', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"a":1}\n\n{oops\n'), 0xff, 0x0a, ...new TextEncoder().encode('[2]')]);
    const events = [];
    for await (const e of readJsonlValues(new MemoryVfs({ '/f.jsonl': bytes }), '/f.jsonl')) events.push(e.kind === 'invalid-json' ? { ...e, message: 'x' } : e);
    expect(events).toEqual([
      { kind: 'value', line: 1, value: { a: 1 }, terminated: true },
      { kind: 'invalid-json', line: 3, message: 'x' },
      { kind: 'invalid-utf8', line: 4 },
      { kind: 'value', line: 5, value: [2], terminated: false },
    ]);
  });
});

describe('OutputFolder', () => {
  it('confines writes and refuses to clobber without force', async () => {
    const vfs = new MemoryVfs({ '/out/a.txt': 'user file' });
    const out = new OutputFolder(vfs, '/out');
    await expect(out.resolve('../etc/passwd')).rejects.toThrow(OutputError);
    await expect(out.write('a.txt', 'x')).rejects.toMatchObject({ code: 'output-exists' });
    await out.write('b/c.txt', 'ok');
    expect(await vfs.readText('/out/b/c.txt')).toBe('ok');
    await new OutputFolder(vfs, '/out', { force: true }).write('a.txt', 'new');
    expect(await vfs.readText('/out/a.txt')).toBe('new');
  });
});

describe('stable json', () => {
  it('sorts keys recursively so ids do not depend on insertion order', () => {
    expect(stableStringify({ b: 1, a: { d: 2, c: [3, { f: 1, e: 0 }] } })).toBe('{"a":{"c":[3,{"e":0,"f":1}],"d":2},"b":1}');
    expect(contentId({ x: 1, y: 2 })).toBe(contentId({ y: 2, x: 1 }));
  });
});

describe('cli', () => {
  it('prints help and version with exit 0, and exit 2 on an unknown command', async () => {
    expect((await cli('--help')).code).toBe(0);
    const v = await cli('--version');
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect((await cli('no-such-command')).code).toBe(2);
  });
});
