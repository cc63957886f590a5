import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { FIXTURE_FEWSHOT, FIXTURE_QUESTIONS } from './support.js';

const root = tempDir('aptpace-emit-cli-');
let n = 0;
// Each case gets its own parent: suites side by side must not share task names.
const fresh = () => path.join(root, `case${++n}`, 'suite');

describe('aptpace emit', () => {
  it('writes a suite with --out and prints the lm_eval command', async () => {
    const out = fresh();
    const r = await cli('emit', FIXTURE_QUESTIONS, '--out', out, '--suite', 'aptpace_cli');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`lm_eval --model hf --model_args "pretrained=$MODEL" --include_path ${out} --tasks aptpace_cli`);
    expect(existsSync(path.join(out, '_aptpace_cli.yaml'))).toBe(true);
  });

  it('-q prints one line: no task table, no command', async () => {
    const out = fresh();
    const r = await cli('-q', 'emit', FIXTURE_QUESTIONS, '--out', out, '--suite', 'aptpace_cli');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([expect.stringMatching(/^wrote \d+ file\(s\) to /), '']);
    expect(r.stdout).toContain(out);
    expect(r.stdout).not.toContain('docs');
  });

  it('reports files, tasks and the command under --json', async () => {
    const out = fresh();
    const r = await cli('--json', 'emit', FIXTURE_QUESTIONS, '--out', out, '--suite', 'aptpace_cli', '--scoring', 'option', '--fewshot', FIXTURE_FEWSHOT, '--num-fewshot', '2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.data.tally).toEqual({ read: 26, accepted: 26, rejected: 0 });
    expect(r.json.data.fewshotTally).toEqual({ read: 5, accepted: 5, rejected: 0 });
    const tasks = Object.fromEntries(r.json.data.tasks.map((t: { task: string; kind: string; fewshot: number }) => [t.task, [t.kind, t.fewshot]]));
    expect(tasks.aptpace_swe_plan_mcq).toEqual(['mcq_option', 2]);
    expect(tasks.aptpace_swe_next_action).toEqual(['completion_exact_match', 2]);
    expect(r.json.data.files.map((f: { path: string }) => f.path)).toContain('data/aptpace_swe_plan_mcq.fewshot.jsonl');
    expect(r.json.data.lmEvalCommand).toContain('--tasks aptpace_cli');
  });

  it('reads every *.jsonl below a folder argument', async () => {
    const dir = path.join(root, 'qdir', 'nested');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'a.jsonl'), readFileSync(FIXTURE_QUESTIONS));
    const r = await cli('--json', 'emit', path.join(root, 'qdir'), '--out', fresh(), '--suite', 'aptpace_cli');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.data.tally.accepted).toBe(26);
  });

  it('installs into a harness checkout with --harness', async () => {
    const checkout = path.join(root, `checkout${++n}`);
    mkdirSync(path.join(checkout, 'lm_eval', 'tasks'), { recursive: true });
    const r = await cli('emit', FIXTURE_QUESTIONS, '--harness', checkout, '--suite', 'aptpace_cli');
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(path.join(checkout, 'lm_eval', 'tasks'))).toEqual(['aptpace_cli']);
    expect(r.stdout).toContain('lm_eval --model hf --model_args "pretrained=$MODEL" --tasks aptpace_cli --log_samples');
  });

  it('is a usage error without exactly one target, or with a bad option', async () => {
    expect((await cli('emit', FIXTURE_QUESTIONS)).code).toBe(2);
    expect((await cli('emit', FIXTURE_QUESTIONS, '--out', fresh(), '--harness', fresh())).code).toBe(2);
    expect((await cli('emit', FIXTURE_QUESTIONS, '--out', fresh(), '--scoring', 'loudest')).code).toBe(2);
    expect((await cli('emit', FIXTURE_QUESTIONS, '--out', fresh(), '--num-fewshot', '0', '--fewshot-split')).code).toBe(2);
  });

  it('writes nothing when an input line is rejected, unless --keep-going', async () => {
    const input = path.join(root, 'with-bad-line.jsonl');
    const lines = readFileSync(FIXTURE_QUESTIONS, 'utf8').trimEnd().split('\n');
    const broken = JSON.parse(lines[0]!);
    broken.choices = ['only one'];
    writeFileSync(input, [...lines.slice(1), JSON.stringify(broken), '{not json'].join('\n') + '\n');
    const out = fresh();
    const refused = await cli('--json', 'emit', input, '--out', out, '--suite', 'aptpace_cli');
    expect(refused.code).toBe(1);
    expect(refused.json.data.tally).toEqual({ read: 27, accepted: 25, rejected: 2 });
    expect(refused.json.findings.filter((f: { severity: string }) => f.severity === 'error').map((f: { path: { line: number } }) => f.path.line)).toEqual([26, 27]);
    expect(existsSync(out)).toBe(false);
    const kept = await cli('--json', 'emit', input, '--out', out, '--suite', 'aptpace_cli', '--keep-going');
    expect(kept.code).toBe(1);
    expect(existsSync(path.join(out, '_aptpace_cli.yaml'))).toBe(true);
  });

  it('exits 1 with a finding for an empty question file and for a name clash', async () => {
    const empty = path.join(root, 'empty.jsonl');
    writeFileSync(empty, '');
    const none = await cli('--json', 'emit', empty, '--out', fresh());
    expect(none.code).toBe(1);
    expect(none.json.findings.map((f: { code: string }) => f.code)).toEqual(['emit-no-questions']);
    const clash = await cli('--json', 'emit', FIXTURE_QUESTIONS, '--out', fresh(), '--suite', 'hellaswag');
    expect(clash.code).toBe(1);
    expect(clash.json.findings.filter((f: { severity: string }) => f.severity === 'error').map((f: { code: string }) => f.code)).toEqual(['emit-name-builtin']);
  });
});
