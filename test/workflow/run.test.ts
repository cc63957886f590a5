import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunConfig, stageArgv, type FlagInfo, type Stage } from '../../generator/core/workflow/run-config.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const flags = new Map<Stage, FlagInfo[]>([
  ['build', [{ name: 'out', takesValue: true, repeatable: false }, { name: 'seed', takesValue: true, repeatable: false }, { name: 'reports', takesValue: true, repeatable: true }, { name: 'force', takesValue: false, repeatable: false }]],
  ['fit', [{ name: 'store', takesValue: true, repeatable: false }, { name: 'budget', takesValue: true, repeatable: false }]],
]);

describe('aptpace.yaml', () => {
  it('turns each stage section into that command\'s argv, in pipeline order, with --set overrides', () => {
    const text = 'format: aptpace-config/1\nfit:\n  store: s/\n  budget: 50\nbuild:\n  inputs: [a.jsonl, b/]\n  reports: [r1.json, r2.json]\n  seed: 7\n  force: true\n';
    const stages = parseRunConfig(text, 'aptpace.yaml', flags, ['fit.budget=100']);
    expect(stages.map(stageArgv)).toEqual([
      ['build', 'a.jsonl', 'b/', '--reports', 'r1.json', '--reports', 'r2.json', '--seed', '7', '--force'],
      ['fit', '--store', 's/', '--budget', '100'],
    ]);
  });

  it('reads snake_case keys (the documented spelling) and kebab-case alike, in the file and in --set', () => {
    const snake = parseRunConfig('build:\n  seed: 7\nfit:\n  store: s\n', 'a.yaml', new Map<Stage, FlagInfo[]>([...flags, ['build', [...flags.get('build')!, { name: 'include-unproven', takesValue: false, repeatable: false }]]]), []);
    const withFlag = (text: string, set: string[] = []) =>
      parseRunConfig(text, 'a.yaml', new Map<Stage, FlagInfo[]>([['build', [...flags.get('build')!, { name: 'include-unproven', takesValue: false, repeatable: false }, { name: 'max-shortcut-gain', takesValue: true, repeatable: false }]]]), set).map(stageArgv);
    expect(snake.map(stageArgv)[0]).toEqual(['build', '--seed', '7']);
    expect(withFlag('build:\n  include_unproven: true\n  max_shortcut_gain: 5\n')).toEqual([['build', '--include-unproven', '--max-shortcut-gain', '5']]);
    expect(withFlag('build:\n  include-unproven: true\n  max-shortcut-gain: 5\n')).toEqual([['build', '--include-unproven', '--max-shortcut-gain', '5']]);
    expect(withFlag('build: {}\n', ['build.max_shortcut_gain=9'])).toEqual([['build', '--max-shortcut-gain', '9']]);
  });

  it('rejects unknown stages and flags with a did-you-mean and the line, lists for one-value flags, and bad --set', () => {
    const err = (text: string, overrides: string[] = []) => {
      try {
        parseRunConfig(text, 'aptpace.yaml', flags, overrides);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('biuld:\n  seed: 1\n')).toBe('aptpace.yaml:1: unknown stage "biuld" (did you mean "build"?); stages: normalize, build, audit, review, emit, plan, ingest, evaluate, fit, predict, check, report');
    expect(err('build:\n  sed: 1\n')).toBe('aptpace.yaml:2: build: unknown flag "sed" (did you mean "seed"?)');
    expect(err('build:\n  seed: [1, 2]\n')).toMatch(/aptpace.yaml:2: build.seed takes one value/);
    expect(err('build:\n  force: yes-please\n')).toMatch(/is a switch/);
    expect(err('fit: {}\n', ['fit.budgt=3'])).toMatch(/unknown flag "budgt" for fit \(did you mean "budget"\?\)/);
    expect(err('format: aptpace-config/9\n')).toMatch(/format must be aptpace-config\/1/);
    expect(err('build: [\n')).toMatch(/not valid YAML/);
  });
});

describe('aptpace run', () => {
  it('runs the configured stages, then skips them while inputs and outputs are unchanged, and reruns from the first changed one', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'aptpace.yaml');
    writeFileSync(config, `format: aptpace-config/1
normalize:
  inputs: [${fixtures('canonical')}]
  out: out/trajectories.jsonl
  force: true
build:
  inputs: [out/trajectories.jsonl]
  out: out/questions.jsonl
  seed: demo
  include-unproven: true
  no-audit: true
  force: true
`);
    const first = await cli('run', '--config', config, '--json', '--quiet');
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.data.stages.map((s: any) => `${s.stage}:${s.status}`)).toEqual(['normalize:ran', 'build:ran']);
    const second = await cli('run', '--config', config, '--json', '--quiet');
    expect(second.json.data.stages.map((s: any) => `${s.stage}:${s.status}`)).toEqual(['normalize:up-to-date', 'build:up-to-date']);
    appendFileSync(path.join(dir, 'out', 'questions.jsonl'), '\n'); // an output edited by hand
    const third = await cli('run', '--config', config, '--json', '--quiet');
    expect(third.json.data.stages.map((s: any) => `${s.stage}:${s.status}`)).toEqual(['normalize:up-to-date', 'build:ran']);
    const bad = await cli('run', '--config', config, 'fit');
    expect(bad.code).toBe(2);
    mkdirSync(path.join(dir, 'cfgdir'));
    expect((await cli('run', '--config', path.join(dir, 'cfgdir'))).code).toBe(2);
  }, 300_000);

  it('replaces its own stage outputs without force: true, refuses foreign ones, and has a report stage', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'aptpace.yaml');
    writeFileSync(config, `format: aptpace-config/1
normalize:
  inputs: [${fixtures('canonical')}]
  out: out/trajectories.jsonl
build:
  inputs: [out/trajectories.jsonl]
  out: out/questions.jsonl
  seed: demo
  include-unproven: true
  no-audit: true
report:
  store: store
  model-file: fit/model.json
  out: series
`);
    const statuses = (r: any) => r.json.data.stages.map((s: any) => `${s.stage}:${s.status}${s.exitCode ? `:${s.exitCode}` : ''}`);
    const first = await cli('run', '--config', config, 'normalize', 'build', '--json', '--quiet');
    expect(first.code, first.stderr).toBe(0);
    const before = readFileSync(path.join(dir, 'out', 'questions.jsonl'), 'utf8');
    // A changed stage reruns and replaces what it wrote, with no force: true in the config.
    const changed = await cli('run', '--config', config, 'normalize', 'build', '--set', 'build.seed=other', '--json', '--quiet');
    expect(changed.code, changed.stderr).toBe(0);
    expect(statuses(changed)).toEqual(['normalize:up-to-date', 'build:ran']);
    expect(readFileSync(path.join(dir, 'out', 'questions.jsonl'), 'utf8')).not.toBe(before);
    // A file at --out that run did not write stays untouched: the command refuses it.
    writeFileSync(config, readFileSync(config, 'utf8').replace('out: out/questions.jsonl', 'out: mine.jsonl'));
    writeFileSync(path.join(dir, 'mine.jsonl'), 'my own notes\n');
    const foreign = await cli('run', '--config', config, 'normalize', 'build', '--json', '--quiet');
    expect(statuses(foreign)).toEqual(['normalize:up-to-date', 'build:ran:2']);
    expect(readFileSync(path.join(dir, 'mine.jsonl'), 'utf8')).toBe('my own notes\n');
    const dry = await cli('run', '--config', config, 'report', '--dry-run', '--json', '--quiet');
    expect(dry.json.data.stages.map((s: any) => [s.stage, s.status, s.command])).toEqual([['report', 'planned', 'aptpace report --store store --model-file fit/model.json --out series']]);
  }, 300_000);
});
