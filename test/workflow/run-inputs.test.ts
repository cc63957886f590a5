/**
 * `aptpace run` and its `inputs:`: a glob's matches (names and contents) decide whether a stage
 * is stale, and an entry starting with `-` is never passed on as a flag.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig, type FlagInfo, type Stage } from '../../generator/core/workflow/run-config.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const statuses = (res: { json: any }) => res.json.data.stages.map((s: any) => `${s.stage}:${s.status}`);

describe('aptpace run inputs', () => {
  it('notices a file added behind a glob and a changed file it matches', async () => {
    const dir = tempDir('aptpace-run-glob-');
    mkdirSync(path.join(dir, 'traj'));
    copyFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl'), path.join(dir, 'traj', 'a.jsonl'));
    const config = path.join(dir, 'aptpace.yaml');
    writeFileSync(config, 'format: aptpace-config/1\nnormalize:\n  inputs: ["traj/*.jsonl"]\n  out: out/t.jsonl\n  force: true\n');
    const first = await cli('run', '--config', config, '--json', '--quiet');
    expect(first.code, first.stderr).toBe(0);
    expect(statuses(first)).toEqual(['normalize:ran']);
    expect(statuses(await cli('run', '--config', config, '--json', '--quiet'))).toEqual(['normalize:up-to-date']);
    copyFileSync(fixtures('trajectories', 'good', 'chat-messages.jsonl'), path.join(dir, 'traj', 'b.jsonl'));
    expect(statuses(await cli('run', '--config', config, '--json', '--quiet'))).toEqual(['normalize:ran']);
    expect(statuses(await cli('run', '--config', config, '--json', '--quiet'))).toEqual(['normalize:up-to-date']);
    const a = path.join(dir, 'traj', 'a.jsonl');
    writeFileSync(a, readFileSync(a, 'utf8').split('\n').slice(0, 1).join('\n') + '\n');
    expect(statuses(await cli('run', '--config', config, '--json', '--quiet'))).toEqual(['normalize:ran']);
  }, 120_000);

  it('an inputs entry starting with "-" is a config error, never a flag', async () => {
    const flags = new Map<Stage, FlagInfo[]>([['emit', [{ name: 'out', takesValue: true, repeatable: false }, { name: 'force', takesValue: false, repeatable: false }]]]);
    expect(() => parseRunConfig('emit:\n  inputs: [q.jsonl, "--force"]\n  out: s\n', 'aptpace.yaml', flags)).toThrow(/aptpace.yaml:2: emit.inputs: "--force" starts with "-"/);
    expect(() => parseRunConfig('emit:\n  out: s\n', 'aptpace.yaml', flags, ['emit.inputs=q.jsonl,--force'])).toThrow(/would be read as a flag/);
    const dir = tempDir('aptpace-run-dash-');
    writeFileSync(path.join(dir, 'README.md'), 'not ours\n');
    const config = path.join(dir, 'aptpace.yaml');
    writeFileSync(config, `format: aptpace-config/1\nemit:\n  inputs: [${fixtures('questions', 'balanced-plan.jsonl')}, "--force"]\n  out: .\n`);
    const res = await cli('run', '--config', config);
    expect(res.code).toBe(2);
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('not ours\n');
  });
});
