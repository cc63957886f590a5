import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
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

  it('rejects unknown stages and flags with a did-you-mean and the line, lists for one-value flags, and bad --set', () => {
    const err = (text: string, overrides: string[] = []) => {
      try {
        parseRunConfig(text, 'aptpace.yaml', flags, overrides);
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(err('biuld:\n  seed: 1\n')).toBe('aptpace.yaml:1: unknown stage "biuld" (did you mean "build"?); stages: normalize, build, audit, review, emit, plan, ingest, evaluate, fit, predict, check');
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
});
