import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { OutputError } from '../../generator/core/kernel/output.js';
import { writeLinesAtomic, type Vfs } from '../../generator/core/kernel/vfs.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

/** The same contract, checked against both implementations. */
const implementations: Array<{ name: string; setup: () => { vfs: Vfs; dir: string; names: () => string[]; read: (f: string) => string } }> = [
  {
    name: 'nodeVfs',
    setup: () => {
      const dir = tempDir('atomic-writer');
      return { vfs: nodeVfs, dir, names: () => readdirSync(dir).sort(), read: (f) => readFileSync(f, 'utf8') };
    },
  },
  {
    name: 'MemoryVfs',
    setup: () => {
      const vfs = new MemoryVfs({ '/w/keep.txt': 'other' });
      return { vfs, dir: '/w', names: () => [...vfs.files.keys()].filter((k) => k.startsWith('/w/')).map((k) => k.slice(3)).sort(), read: (f) => new TextDecoder().decode(vfs.files.get(f)!) };
    },
  },
];

const rejection = async (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);

describe.each(implementations)('openAtomicWriter ($name)', ({ setup }) => {
  it('writes nothing visible until commit, then the whole file at once', async () => {
    const { vfs, dir, names, read } = setup();
    const before = names();
    const target = path.join(dir, 'out.jsonl');
    const w = await vfs.openAtomicWriter(target);
    await w.write('{"a":1}\n');
    await w.write(new TextEncoder().encode('{"b":"é"}\n'));
    // Only a dot-named temp file beside the target; the target does not exist yet.
    const during = names().filter((n) => !before.includes(n));
    expect(during).toHaveLength(1);
    expect(during[0]).toMatch(/^\.out\.jsonl\..+\.tmp$/);
    expect(await vfs.stat(target)).toBeUndefined();
    await w.commit();
    expect(read(target)).toBe('{"a":1}\n{"b":"é"}\n');
    expect(names()).toEqual([...before, 'out.jsonl'].sort());
  });

  it('a producer that crashes mid-write leaves no target and no temp file', async () => {
    const { vfs, dir, names } = setup();
    const before = names();
    const target = path.join(dir, 'crash.jsonl');
    async function produce() {
      const w = await vfs.openAtomicWriter(target);
      try {
        await w.write('first half\n');
        throw new Error('reader exploded');
      } finally {
        await w.abort();
      }
    }
    await expect(produce()).rejects.toThrow('reader exploded');
    expect(await vfs.stat(target)).toBeUndefined();
    expect(names()).toEqual(before);
  });

  it('commit replaces an existing file with force, and abort keeps the old content', async () => {
    const { vfs, dir, read } = setup();
    const target = path.join(dir, 'replace.txt');
    await vfs.writeFileAtomic(target, 'old');
    const aborted = await vfs.openAtomicWriter(target, { force: true });
    await aborted.write('never seen');
    await aborted.abort();
    await aborted.abort(); // twice is harmless
    expect(read(target)).toBe('old');
    const w = await vfs.openAtomicWriter(target, { force: true });
    await w.write('new');
    // Replaced only at commit: until then readers still see the old file.
    expect(read(target)).toBe('old');
    await w.commit();
    await w.abort(); // after commit: a no-op, so `finally { abort() }` is the safe pattern
    expect(read(target)).toBe('new');
  });

  it('refuses an existing target without force, at open and at commit', async () => {
    const { vfs, dir, names, read } = setup();
    const target = path.join(dir, 'user.txt');
    await vfs.writeFileAtomic(target, "user's file");
    const atOpen = await rejection(vfs.openAtomicWriter(target));
    expect(atOpen).toBeInstanceOf(OutputError);
    expect((atOpen as OutputError).code).toBe('output-exists');

    // The file appears while the writer is open (another process, a second run).
    const late = path.join(dir, 'late.txt');
    const before = names();
    const w = await vfs.openAtomicWriter(late);
    await w.write('ours');
    await vfs.writeFileAtomic(late, 'theirs');
    const atCommit = await rejection(w.commit());
    expect(atCommit).toBeInstanceOf(OutputError);
    expect((atCommit as OutputError).code).toBe('output-exists');
    expect(read(late)).toBe('theirs');
    expect(read(target)).toBe("user's file");
    expect(names()).toEqual([...before, 'late.txt'].sort());
  });

  it('refuses writes after commit or abort', async () => {
    const { vfs, dir } = setup();
    const w = await vfs.openAtomicWriter(path.join(dir, 'done.txt'));
    await w.commit();
    await expect(w.write('late')).rejects.toThrow(/after commit/);
    await expect(w.commit()).rejects.toThrow(/after commit/);
    const a = await vfs.openAtomicWriter(path.join(dir, 'gone.txt'));
    await a.abort();
    await expect(a.write('late')).rejects.toThrow(/after abort/);
  });
});

describe('openAtomicWriter on disk', () => {
  it('streams more than its buffer, waiting for drain, and keeps every byte in order', async () => {
    const dir = tempDir('atomic-writer-big');
    const target = path.join(dir, 'nested', 'big.txt');
    const w = await nodeVfs.openAtomicWriter(target);
    const chunk = `${'x'.repeat(64 * 1024 - 9)}\n`;
    let expected = 0;
    for (let i = 0; i < 80; i++) {
      const line = `${String(i).padStart(8, '0')}${chunk}`;
      await w.write(line);
      expected += line.length;
    }
    await w.commit();
    const text = readFileSync(target, 'utf8');
    expect(text.length).toBe(expected);
    const lines = text.split('\n').filter(Boolean);
    expect(lines.map((l) => Number(l.slice(0, 8)))).toEqual(Array.from({ length: 80 }, (_, i) => i));
    expect(readdirSync(path.dirname(target))).toEqual(['big.txt']);
  });

  it('an unwritable folder fails at open and leaves nothing behind', async () => {
    const dir = tempDir('atomic-writer-ro');
    const blocker = path.join(dir, 'file');
    writeFileSync(blocker, 'x');
    // The parent "directory" is a file: mkdir fails before any temp file exists.
    await expect(nodeVfs.openAtomicWriter(path.join(blocker, 'out.txt'))).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['file']);
  });
});

describe('writeLinesAtomic', () => {
  it('writes each line with a newline, across batch boundaries and lines larger than a batch', async () => {
    const vfs = new MemoryVfs();
    const lines = ['{"a":"é中😀"}', '', 'x'.repeat(3 * 1024 * 1024 + 7), ...Array.from({ length: 5000 }, (_, i) => `{"i":${i},"s":"${'ü'.repeat(i % 300)}"}`), '末'];
    async function* produce() {
      yield* lines;
    }
    expect(await writeLinesAtomic(vfs, '/o/out.jsonl', produce())).toBe(lines.length);
    const bytes = vfs.files.get('/o/out.jsonl')!;
    expect(Buffer.from(bytes).equals(Buffer.from(`${lines.join('\n')}\n`, 'utf8'))).toBe(true);
    expect([...vfs.files.keys()]).toEqual(['/o/out.jsonl']);
  });

  it('no lines give an empty file; an existing target is refused before the producer runs', async () => {
    const vfs = new MemoryVfs({ '/o/taken.jsonl': 'mine' });
    expect(await writeLinesAtomic(vfs, '/o/empty.jsonl', [])).toBe(0);
    expect(vfs.files.get('/o/empty.jsonl')).toEqual(new Uint8Array());
    let started = false;
    async function* produce() {
      started = true;
      yield 'x';
    }
    await expect(writeLinesAtomic(vfs, '/o/taken.jsonl', produce())).rejects.toBeInstanceOf(OutputError);
    expect(started).toBe(false);
    expect(await vfs.readText('/o/taken.jsonl')).toBe('mine');
    await writeLinesAtomic(vfs, '/o/taken.jsonl', produce(), { force: true });
    expect(await vfs.readText('/o/taken.jsonl')).toBe('x\n');
  });

  it('a producer that throws after a full batch leaves no target and no temp file on disk', async () => {
    const dir = tempDir('lines-atomic');
    async function* produce() {
      for (let i = 0; i < 3000; i++) yield 'y'.repeat(1000);
      throw new Error('producer failed');
    }
    await expect(writeLinesAtomic(nodeVfs, path.join(dir, 'out.jsonl'), produce())).rejects.toThrow('producer failed');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('normalize writes through the atomic writer', () => {
  it('a reader failing mid-corpus leaves neither --out nor a temp file', async () => {
    const dir = tempDir('normalize-crash');
    const corpus = path.join(dir, 'corpus');
    mkdirSync(corpus);
    const good = readFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl'));
    for (const name of ['a.jsonl', 'b.jsonl', 'c.jsonl']) writeFileSync(path.join(corpus, name), good);
    const out = path.join(dir, 'out', 'all.jsonl');
    const failing: Vfs = {
      ...nodeVfs,
      async *readChunks(p, size) {
        if (p.endsWith('c.jsonl')) throw new Error('EIO: disk gone');
        yield* nodeVfs.readChunks(p, size);
      },
    };
    const normalize = (await import('../../generator/cli/commands/normalize.js')).default;
    const ctx = { vfs: failing, cwd: dir, json: false, progress: () => undefined, invoke: async () => 0, optionsOf: async () => [], runProcess: async () => ({ code: null, stdout: '', stderr: '', error: 'no processes in this test' }) };
    await expect(normalize.run([corpus], { out, quiet: true }, ctx)).rejects.toThrow('EIO: disk gone');
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(path.join(dir, 'out'))).toEqual([]);
  });

  it('an existing --out is refused before anything is read, and replaced with --force', async () => {
    const dir = tempDir('normalize-exists');
    const out = path.join(dir, 'out.jsonl');
    writeFileSync(out, 'mine\n');
    const refused = await cli('normalize', fixtures('trajectories', 'good', 'chat-messages.jsonl'), '--out', out, '--json');
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('output-exists');
    expect(readFileSync(out, 'utf8')).toBe('mine\n');
    const forced = await cli('normalize', fixtures('trajectories', 'good', 'chat-messages.jsonl'), '--out', out, '--force', '--json');
    expect(forced.code).toBe(0);
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean).length).toBe(forced.json.data.written);
    expect(forced.json.data.written).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['out.jsonl']);
  });
});
