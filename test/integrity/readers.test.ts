/**
 * Readers keep going: an unreadable file is a finding naming it and the readable files are
 * still read (and written); a FIFO matched by a glob is a finding, not a hang or a silent skip;
 * a file reachable twice through `up -> ..` is read once.
 */
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtures } from '../helpers/env.js';
import { commandRegistry } from '../../generator/cli/registry.js';
import type { CommandResult } from '../../generator/cli/command.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import type { Vfs } from '../../generator/core/kernel/vfs.js';

const dir = tempDir('aptpace-readers-');
const traj = path.join(dir, 'traj');
const qdir = path.join(dir, 'questions');

/** A Vfs on which every read of a file named `bad.*` fails as a permission error does. */
const denying: Vfs = (() => {
  const deny = (p: string) => {
    if (path.basename(p).startsWith('bad.')) throw Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES', path: p });
  };
  return {
    ...nodeVfs,
    async *readChunks(p, size) {
      deny(p);
      yield* nodeVfs.readChunks(p, size);
    },
    async readBytes(p) {
      deny(p);
      return nodeVfs.readBytes(p);
    },
    async readText(p) {
      deny(p);
      return nodeVfs.readText(p);
    },
  };
})();

/** Runs one command through its own option parsing, on the given Vfs. */
async function runWith(vfs: Vfs, argv: string[]): Promise<CommandResult> {
  const entry = commandRegistry.find((c) => c.name === argv[0])!;
  const spec = await entry.load();
  const cmd = new Command(argv[0]).exitOverride();
  spec.configure(cmd);
  let result!: CommandResult;
  cmd.action(async (...a: unknown[]) => {
    const c = a[a.length - 1] as Command;
    result = await spec.run(c.args, c.opts(), { vfs, cwd: dir, json: true, progress: () => undefined, invoke: async () => 0, optionsOf: async () => [], runProcess: async () => ({ code: null, stdout: '', stderr: '', error: 'no processes in this test' }) });
  });
  await cmd.parseAsync(argv.slice(1), { from: 'user' });
  return result;
}

beforeAll(async () => {
  mkdirSync(traj);
  mkdirSync(qdir);
  copyFileSync(fixtures('canonical', 'env-setup.jsonl'), path.join(traj, 'a.jsonl'));
  copyFileSync(fixtures('canonical', 'env-setup.jsonl'), path.join(traj, 'bad.jsonl'));
  const built = await cli('build', path.join(traj, 'a.jsonl'), '--out', path.join(qdir, 'a.jsonl'), '--include-unproven', '--no-audit', '--quiet');
  expect(built.code, built.stderr).toBeLessThan(2);
  copyFileSync(path.join(qdir, 'a.jsonl'), path.join(qdir, 'bad.jsonl'));
}, 120_000);

const codes = (r: CommandResult) => r.findings.map((f) => f.code);
const about = (r: CommandResult, code: string) => r.findings.filter((f) => f.code === code).map((f) => path.basename(f.path.file ?? ''));

describe('an unreadable file costs that file, not the run', () => {
  it('inspect, normalize and build report it and read the others', async () => {
    const inspected = await runWith(denying, ['inspect', traj]);
    expect(about(inspected, 'traj-file-unreadable')).toEqual(['bad.jsonl']);
    expect((inspected.data as any).tally.accepted).toBeGreaterThan(0);

    const out = path.join(dir, 'norm.jsonl');
    const normalized = await runWith(denying, ['normalize', traj, '--out', out]);
    expect(about(normalized, 'traj-file-unreadable')).toEqual(['bad.jsonl']);
    expect((normalized.data as any).written).toBeGreaterThan(0);
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean).length).toBe((normalized.data as any).written);

    const built = await runWith(denying, ['build', traj, '--out', path.join(dir, 'q-built.jsonl'), '--include-unproven', '--no-audit']);
    expect(about(built, 'traj-file-unreadable')).toEqual(['bad.jsonl']);
    expect((built.data as any).questions).toBeGreaterThan(0);
  });

  it('audit, review and emit report it and read the others', async () => {
    const files = [path.join(qdir, 'a.jsonl'), path.join(qdir, 'bad.jsonl')];
    const audited = await runWith(denying, ['audit', ...files]);
    expect(about(audited, 'question-missing-file')).toEqual(['bad.jsonl']);
    expect((audited.data as any).tally.accepted).toBeGreaterThan(0);

    const reviewed = await runWith(denying, ['review', ...files, '--out', path.join(dir, 'review')]);
    expect(about(reviewed, 'question-missing-file')).toEqual(['bad.jsonl']);
    expect(readFileSync(path.join(dir, 'review', 'review.html'), 'utf8').length).toBeGreaterThan(0);

    const emitted = await runWith(denying, ['emit', ...files, '--out', path.join(dir, 'suite'), '--suite', 'aptpace_readers', '--keep-going']);
    expect(about(emitted, 'question-missing-file')).toEqual(['bad.jsonl']);
    expect(codes(emitted)).not.toContain('emit-target-unwritable');
    expect(readFileSync(path.join(dir, 'suite', 'aptpace-manifest.json'), 'utf8')).toContain('aptpace_readers');
  });
});

describe('globs over odd trees', () => {
  it('a FIFO matched by an audit glob is a finding naming it (nothing hangs)', async () => {
    const d = path.join(dir, 'fifo');
    mkdirSync(d);
    copyFileSync(path.join(qdir, 'a.jsonl'), path.join(d, 'a.jsonl'));
    expect(spawnSync('mkfifo', [path.join(d, 'pipe.jsonl')]).status).toBe(0);
    const res = await cli('audit', path.join(d, '*.jsonl'), '--json');
    expect(res.json.findings.filter((f: any) => f.code === 'question-missing-file').map((f: any) => path.basename(f.path.file))).toEqual(['pipe.jsonl']);
    expect(res.json.data.tally.accepted).toBeGreaterThan(0);
  });

  it('a file reachable again through an `up -> ..` link is read once', async () => {
    const d = path.join(dir, 'loop');
    mkdirSync(path.join(d, 'sub'), { recursive: true });
    copyFileSync(path.join(qdir, 'a.jsonl'), path.join(d, 'sub', 'a.jsonl'));
    symlinkSync('..', path.join(d, 'sub', 'up'));
    const once = await cli('audit', path.join(d, 'sub', 'a.jsonl'), '--json');
    const res = await cli('audit', path.join(d, '**', '*.jsonl'), '--json');
    expect(res.json.data.tally.read).toBe(once.json.data.tally.read);
    expect(res.json.findings.map((f: any) => f.code)).not.toContain('question-duplicate-id');
  });
});

describe('huge flat and deep inputs are handled iteratively, findings and tallies kept', () => {
  it('a 200,000-row PACE CSV is read row by row (no stack overflow, no input-too-deep)', async () => {
    const { parseCsv } = await import('../../generator/core/logs/csv.js');
    const rows = ['id,score,metric_name', ...Array.from({ length: 200_000 }, (_, i) => `i${i},${(i % 100) / 100},acc`)].join('\n');
    expect(parseCsv(rows, ',').rows.length).toBe(200_001);
    const src = path.join(dir, 'pace-src', 'bench', 'sub');
    mkdirSync(src, { recursive: true });
    writeFileSync(path.join(src, 'ModelA.csv'), rows);
    const res = await cli('fit', '--sources', path.join(dir, 'pace-src'), '--out', path.join(dir, 'pace-fit'), '--json');
    expect(res.code).toBe(1);
    expect(res.json.findings.map((f: any) => f.code)).not.toContain('input-too-deep');
  });

  it('a 300,000-element array passes the JSON checks', async () => {
    const { parseJson } = await import('../../generator/core/kernel/json.js');
    const text = `[${Array.from({ length: 300_000 }, () => '"\\ud83d\\ude00"').join(',')}]`;
    expect((parseJson(text) as unknown[]).length).toBe(300_000);
  });

  it('a 5,000-deep acc array in harness samples is a finding about that record, the rest is ingested', async () => {
    const logs = path.join(dir, 'deep-logs');
    cpSync(fixtures('logs', 'harness-output'), logs, { recursive: true });
    const model = path.join(logs, 'out', 'model-b');
    const file = path.join(model, readdirSync(model).find((f) => /^samples_aptd_mc_2026/.test(f))!);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[0] = lines[0]!.replace(/"acc": *[^,}]+/, `"acc": ${'['.repeat(5000)}1${']'.repeat(5000)}`);
    writeFileSync(file, lines.join('\n'));
    const res = await cli('ingest', logs, '--out', path.join(dir, 'deep-store'), '--json');
    expect(res.code).toBe(1);
    const codes = res.json.findings.map((f: any) => f.code);
    expect(codes).not.toContain('input-too-deep');
    expect(codes).toContain('samples-bad-value');
    expect(res.json.data.tallies.samples.rejected).toBe(1);
    expect(res.json.data.tallies.samples.accepted).toBeGreaterThan(0);
  });

  it('the question reader keeps bounded findings for a file of bad lines, and counts every line', async () => {
    const file = path.join(dir, 'bad-lines.jsonl');
    writeFileSync(file, `${Array.from({ length: 20_000 }, (_, i) => `{"broken": ${i}`).join('\n')}\n`);
    const { readQuestions, FINDINGS_PER_FILE_CODE } = await import('../../generator/core/questions/read-questions.js');
    const read = await readQuestions(nodeVfs, [file]);
    expect(read.tally.read).toBe(20_000);
    expect(read.tally.rejected).toBe(20_000);
    expect(read.findings.filter((f) => f.code === 'question-invalid-json').length).toBe(FINDINGS_PER_FILE_CODE);
    expect(read.findings.filter((f) => f.code === 'findings-folded').map((f) => ({ file: f.path.file, ...f.args }))).toEqual([{ file, code: 'question-invalid-json', count: 20_000 - FINDINGS_PER_FILE_CODE, kept: FINDINGS_PER_FILE_CODE }]);
  });
});

describe('emit and review take folders and globs the same way', () => {
  it('a folder with a FIFO and an `up -> ..` link: the FIFO is a finding, each file is read once', async () => {
    const d = path.join(dir, 'emit-tree');
    mkdirSync(path.join(d, 'sub'), { recursive: true });
    copyFileSync(path.join(qdir, 'a.jsonl'), path.join(d, 'sub', 'a.jsonl'));
    symlinkSync('..', path.join(d, 'sub', 'up'));
    expect(spawnSync('mkfifo', [path.join(d, 'pipe.jsonl')]).status).toBe(0);
    const res = await cli('emit', d, '--out', path.join(dir, 'emit-tree-suite'), '--suite', 'aptpace_tree', '--keep-going', '--json');
    expect(res.json.findings.filter((f: any) => f.code === 'question-missing-file').map((f: any) => path.basename(f.path.file))).toEqual(['pipe.jsonl']);
    expect(res.json.findings.map((f: any) => f.code)).not.toContain('question-duplicate-id');
    const once = await cli('audit', path.join(d, 'sub', 'a.jsonl'), '--json');
    expect(res.json.data.tally.accepted).toBe(once.json.data.tally.accepted);
  });
});

describe('tallies never reject more than they read', () => {
  it('an empty samples file is read 1, rejected 1', async () => {
    const { readSampleFile } = await import('../../generator/core/logs/harness/samples.js');
    const { FindingSink } = await import('../../generator/core/logs/sink.js');
    const file = path.join(dir, 'samples_empty_2026-01-01T00-00-00.jsonl');
    writeFileSync(file, '');
    const sink = new FindingSink();
    const tally = { read: 0, accepted: 0, rejected: 0, skipped: {} };
    await readSampleFile(nodeVfs, file, { metric: 'acc', filter: 'none', filterOrder: ['none'], jsonArray: false }, sink, tally);
    expect(sink.close().map((f) => f.code)).toEqual(['samples-empty']);
    expect(tally).toMatchObject({ read: 1, accepted: 0, rejected: 1 });
  });
});
