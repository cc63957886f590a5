import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandRegistry } from '../../generator/cli/registry.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

describe('list options never swallow positionals', () => {
  it('no option of any command is commander-variadic', async () => {
    for (const entry of commandRegistry) {
      const cmd = new Command(entry.name);
      (await entry.load()).configure(cmd);
      for (const option of cmd.options) expect(option.variadic, `${entry.name} ${option.flags}`).toBe(false);
    }
  });

  it('build --report FILE TRAJ_DIR --out parses the directory as an input', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'x.jsonl');
    const res = await cli('build', '--report', fixtures('trajectories', 'reports', 'instance-verdicts.json'), fixtures('trajectories', 'good'), '--out', out, '--json');
    expect(res.stderr).not.toMatch(/missing required argument/);
    expect(res.json?.command).toBe('build');
    expect(existsSync(out)).toBe(true);
  });

  it('the deprecated --reports still works (hidden) and feeds the same evidence as --report', async () => {
    const dir = tempDir();
    const report = fixtures('trajectories', 'reports', 'instance-verdicts.json');
    const a = await cli('build', '--reports', report, fixtures('trajectories', 'good'), '--out', path.join(dir, 'a.jsonl'), '--json');
    const b = await cli('build', '--report', report, fixtures('trajectories', 'good'), '--out', path.join(dir, 'b.jsonl'), '--json');
    expect(a.code).toBe(b.code);
    expect({ ...a.json.data, out: '' }).toEqual({ ...b.json.data, out: '' });
    expect(readFileSync(path.join(dir, 'a.jsonl'), 'utf8')).toBe(readFileSync(path.join(dir, 'b.jsonl'), 'utf8'));
    expect((await cli('build', '--help')).stdout).not.toContain('--reports');
  });

  it('ingest --targets DIR LOG_ROOT --out reads the log root as a positional', async () => {
    const dir = tempDir();
    const res = await cli('ingest', '--targets', fixtures('example', 'targets'), fixtures('logs', 'harness-output'), '--out', path.join(dir, 's'), '--json');
    expect(res.stderr).not.toMatch(/give at least one log root/);
    expect(res.json?.command).toBe('ingest');
  });

  it('ingest takes --sources (one name with fit/evaluate/predict/check); --tables is a hidden alias', async () => {
    const dir = tempDir();
    const viaSources = await cli('ingest', '--sources', fixtures('example', 'sources'), '--out', path.join(dir, 's1'), '--json');
    const viaTables = await cli('ingest', '--tables', fixtures('example', 'sources'), '--out', path.join(dir, 's2'), '--json');
    expect(viaSources.code).toBe(0);
    expect(viaTables.code).toBe(0);
    expect({ ...viaTables.json.data, store: '' }).toEqual({ ...viaSources.json.data, store: '' });
    expect((await cli('ingest', '--help')).stdout).not.toContain('--tables');
  });

  it('name lists take repeats and commas alike', async () => {
    const cmd = new Command('fit').exitOverride();
    (await commandRegistry.find((c) => c.name === 'fit')!.load()).configure(cmd);
    cmd.action(() => {});
    await cmd.parseAsync(['--target', 'a,b', '--target', 'c', '--out', 'o'], { from: 'user' });
    expect(cmd.opts().target).toEqual(['a', 'b', 'c']);
  });
});
