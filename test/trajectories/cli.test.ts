import { readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { isProvenSuccess } from '../../generator/core/trajectories/types.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const good = fixtures('trajectories', 'good');
const bad = fixtures('trajectories', 'bad');

describe('aptpace inspect', () => {
  it('prints one row per file and exits 0 on clean input', async () => {
    const r = await cli('inspect', good);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/acme__widgets-12\.traj\s+swe-agent-traj\s+1\s+4\s+1 unknown/);
    expect(r.stdout).toMatch(/openhands-output\.jsonl\s+openhands-output-jsonl\s+2\s+6\s+1 proven \(harness_report\), 1 unknown/);
    expect(r.stdout).toContain('trajectories: read 13, accepted 13, rejected 0');
  });

  it('--json carries files, tally and totals', async () => {
    const r = await cli('inspect', good, '--json', '--report', fixtures('trajectories', 'reports', 'swebench-summary.json'));
    expect(r.code).toBe(0);
    expect(r.json.command).toBe('inspect');
    expect(r.json.data.files).toHaveLength(9);
    expect(r.json.data.tally).toEqual({ read: 13, accepted: 13, rejected: 0 });
    expect(r.json.data.totals).toMatchObject({ trajectories: 13, steps: 34, tokens: r.json.data.files.reduce((n: number, f: any) => n + f.tokens, 0) });
    const mini = r.json.data.files.find((f: any) => f.file.endsWith('acme__widgets-14.traj.json'));
    expect(mini.success).toEqual({ 'true:harness_report': 1 });
    expect(r.json.data.tokens).toBe('chars/4');
  });

  it('--report is repeatable and does not swallow the inputs that follow it', async () => {
    const reports = (name: string) => fixtures('trajectories', 'reports', name);
    const r = await cli('inspect', '--report', reports('labels.jsonl'), path.join(good, 'chat-messages.jsonl'), '--report', reports('resolved-list.json'), '--json');
    expect(r.code).toBe(0);
    expect(r.json.data.files.map((f: any) => path.basename(f.file))).toEqual(['chat-messages.jsonl']);
    expect(r.json.data.files[0].success).toEqual({ 'true:harness_report': 2, 'false:dataset_label': 1 });
  });

  it('--exact-tokens counts with cl100k_base', async () => {
    const cheap = await cli('inspect', path.join(good, 'canonical.jsonl'), '--json');
    const exact = await cli('inspect', path.join(good, 'canonical.jsonl'), '--json', '--exact-tokens');
    // Hand count: goal 38 chars; step 0: 3 separators + 14 + 16 + 30; step 1: 3 + 0 + 9 + 8 → 121 chars → ⌈121/4⌉.
    expect(cheap.json.data.files[0].tokens).toBe(31);
    expect(exact.json.data.tokens).toBe('cl100k_base');
    // The chars/4 estimate and the tokenizer disagree on this text; the flag must switch between them.
    expect(exact.json.data.files[0].tokens).toBeGreaterThan(0);
    expect(exact.json.data.files[0].tokens).not.toBe(cheap.json.data.files[0].tokens);
  });

  it('exits 1 when anything is rejected and renders every finding', async () => {
    const r = await cli('inspect', bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[traj-malformed-json]');
    expect(r.stderr).toMatch(/error\[traj-wrong-type\] .*wrong-types\.jsonl:1 trajectory\[0\]\.execution: expected an object \{name, args\}, found string/);
    expect(r.stdout).toContain('trajectories: read 22, accepted 5, rejected 17; skipped extension=1');
  });

  it('usage errors exit 2', async () => {
    expect((await cli('inspect', good, '--format', 'nope')).code).toBe(2);
    expect((await cli('inspect', good, '--max-file-mb', '-3')).code).toBe(2);
    expect((await cli('inspect')).code).toBe(2);
    expect((await cli('inspect', good, '--domain', 'cooking')).code).toBe(2);
  });
});

describe('aptpace normalize', () => {
  const dir = tempDir('aptpace-normalize-');

  it('writes canonical JSONL that reads back identically, and byte-identical on a rerun', async () => {
    const out = path.join(dir, 'all.jsonl');
    const first = await cli('normalize', good, '--out', out, '--quiet');
    expect(first.code).toBe(0);
    const bytes = readFileSync(out, 'utf8');
    const lines = bytes.trimEnd().split('\n');
    expect(lines).toHaveLength(13);
    // Sorted keys on every line.
    expect(lines.every((l) => l.startsWith('{"agent":'))).toBe(true);

    const original = await readTrajectories(nodeVfs, [good]);
    const back = await readTrajectories(nodeVfs, [out]);
    expect(back.findings).toEqual([]);
    expect(back.files[0]!.format).toBe('canonical-jsonl');
    expect(back.trajectories).toEqual(original.trajectories);

    const again = await cli('normalize', good, '--out', out, '--force', '--quiet');
    expect(again.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(bytes);
    // No temp files left beside the output.
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('refuses to overwrite without --force and leaves the file alone', async () => {
    const out = path.join(dir, 'mine.jsonl');
    writeFileSync(out, 'precious\n');
    const r = await cli('normalize', good, '--out', out);
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error[output-exists]');
    expect(readFileSync(out, 'utf8')).toBe('precious\n');
  });

  it('--only-proven keeps evidence-backed successes only', async () => {
    const out = path.join(dir, 'proven.jsonl');
    const r = await cli('normalize', good, '--out', out, '--only-proven', '--json', '--report', fixtures('trajectories', 'reports', 'instance-verdicts.json'));
    expect(r.code).toBe(0);
    expect(r.json.data).toMatchObject({ written: 5, dropped: 8 });
    const kept = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(kept.every(isProvenSuccess)).toBe(true);
    expect(kept.map((t) => t.task.instance_id).sort()).toEqual(['acme__widgets-12', 'acme__widgets-20', 'acme__widgets-30', 'acme__widgets-40', 'dr-0001']);
  });

  it('writes what it could and exits 1 when inputs were rejected', async () => {
    const out = path.join(dir, 'partial.jsonl');
    const r = await cli('normalize', bad, good, '--out', out, '--quiet');
    expect(r.code).toBe(1);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(5 + 13);
  });

  it('does not read its own output back when it lives inside an input folder', async () => {
    const runs = path.join(dir, 'runs');
    const { mkdirSync, copyFileSync } = await import('node:fs');
    mkdirSync(runs);
    copyFileSync(path.join(good, 'deep-research.jsonl'), path.join(runs, 'deep-research.jsonl'));
    const out = path.join(runs, 'all.jsonl');
    expect((await cli('normalize', runs, '--out', out, '--quiet')).code).toBe(0);
    const again = await cli('normalize', runs, '--out', out, '--force', '--json');
    expect(again.code).toBe(0);
    expect(again.json.data.written).toBe(2);
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });

  it('needs a .jsonl --out', async () => {
    const r = await cli('normalize', good, '--out', path.join(dir, 'x.txt'));
    expect(r.code).toBe(2);
    expect(existsSync(path.join(dir, 'x.txt'))).toBe(false);
  });
});
