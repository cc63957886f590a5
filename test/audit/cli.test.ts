import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const q = (name: string) => fixtures('questions', name);
const codes = (json: any) => json.findings.map((f: any) => f.code);

describe('aptpace audit', () => {
  it('passes a balanced set (exit 0) and prints the per-task table', async () => {
    const r = await cli('audit', q('balanced-plan.jsonl'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('aptpace_swe_plan_mcq: 48 questions (48 MCQ, 0 completion; scored MCQs K=4×48)');
    expect(r.stdout).toMatch(/gold letters\s+A=12 B=12 C=12 D=12/);
    for (const name of ['longest_option', 'most_similar', 'copy_elimination', 'offered_tool', 'topic_relevance', 'letter_prior', 'combined']) expect(r.stdout).toContain(name);
    expect(r.stdout).toContain('questions: read 48, accepted 48, rejected 0');
  });

  it('fails a biased set (exit 1) with the shortcut named in --json', async () => {
    const r = await cli('audit', q('biased-longest.jsonl'), '--json');
    expect(r.code).toBe(1);
    const failing = r.json.findings.filter((f: any) => f.severity === 'error');
    expect(failing.map((f: any) => [f.code, f.args.shortcut])).toEqual([
      ['audit-shortcut-above-chance', 'longest_option'],
      ['audit-shortcut-below-chance', 'most_similar'],
      // The learned adversary finds the same length cue.
      ['audit-adversary-above-chance', undefined],
    ]);
    const task = r.json.data.report.tasks[0];
    expect(task.shortcuts.find((s: any) => s.name === 'longest_option')).toMatchObject({ n: 48, correct: 48, accuracy: 1, chance: 0.25 });
    expect(r.json.data.tally).toEqual({ read: 48, accepted: 48, rejected: 0 });
  });

  it('audits several files per task and honours --max-shortcut-gain', async () => {
    // Together: 96 questions, gold longest in 48 + 12 → 62.5% vs 25%: fails at any sane tolerance, passes at 40.
    const strictRun = await cli('audit', q('balanced-plan.jsonl'), q('biased-longest.jsonl'), '--json');
    expect(strictRun.code).toBe(1);
    expect(strictRun.json.data.report.tasks[0].questions).toBe(96);
    const lenient = await cli('audit', q('balanced-plan.jsonl'), q('biased-longest.jsonl'), '--max-shortcut-gain', '40', '--json');
    expect(codes(lenient.json)).not.toContain('audit-shortcut-above-chance');
    // The two fixtures reuse four (trajectory, gold) pairs with other distractors: near-duplicates, an error whatever the limit.
    const errors = lenient.json.findings.filter((f: any) => f.severity === 'error');
    expect(errors.map((f: any) => [f.code, f.args.count])).toEqual(Array(4).fill(['audit-near-duplicate', 2]));
    expect(lenient.code).toBe(1);
  });

  it('expands glob patterns', async () => {
    const r = await cli('audit', fixtures('questions', 'biased-*.jsonl'), '--json');
    expect(r.json.data.tally.read).toBe(48 + 40 + 48);
    expect(r.code).toBe(1);
  });

  it('--strict turns not-yet-significant deviations into a failure', async () => {
    const plain = await cli('audit', q('hostile.jsonl'));
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain('audit-shortcut-not-significant');
    expect((await cli('audit', q('hostile.jsonl'), '--strict')).code).toBe(1);
  });

  it('reports rejected lines with file and line and exits 1, auditing the rest', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'mixed.jsonl');
    const good = readFileSync(q('balanced-plan.jsonl'), 'utf8').split('\n').slice(0, 3).join('\n');
    writeFileSync(file, `${good}\n{"oops": \n`);
    const r = await cli('audit', file, '--json');
    expect(r.code).toBe(1);
    const bad = r.json.findings.find((f: any) => f.code === 'question-invalid-json');
    expect(bad.path).toEqual({ file, line: 4 });
    expect(r.json.data.tally).toEqual({ read: 4, accepted: 3, rejected: 1 });
    expect(r.json.data.report.questions).toBe(3);
  });

  it('usage errors exit 2; a glob that matches nothing is a finding', async () => {
    expect((await cli('audit', q('balanced-plan.jsonl'), '--tolerance', 'lots')).code).toBe(2);
    expect((await cli('audit', q('balanced-plan.jsonl'), '--max-shortcut-gain', '-3')).code).toBe(2);
    expect((await cli('audit', q('balanced-plan.jsonl'), '--alpha', '1.5')).code).toBe(2);
    const none = await cli('audit', path.join(tempDir(), '*.jsonl'), '--json');
    expect(none.code).toBe(1);
    expect(codes(none.json)).toEqual(['no-inputs']);
  });

  it('is deterministic: same input, same bytes', async () => {
    const a = await cli('audit', q('leaky.jsonl'), '--json');
    const b = await cli('audit', q('leaky.jsonl'), '--json');
    expect(a.stdout).toBe(b.stdout);
    expect(codes(a.json)).toEqual(expect.arrayContaining(['audit-gold-leaked', 'audit-duplicate-question', 'audit-duplicate-prompt']));
  });
});

describe('audit on the wrong kind of file', () => {
  it('says once per file that it holds trajectories, with the command to run, instead of a schema error per field', async () => {
    const res = await cli('audit', fixtures('canonical', 'deep-research.jsonl'), '--json');
    expect(res.code).toBe(1);
    const codes = res.json.findings.map((f: { code: string }) => f.code);
    expect(codes.filter((c: string) => c === 'question-file-wrong-kind')).toHaveLength(1);
    expect(codes).not.toContain('question-schema');
    const f = res.json.findings.find((x: { code: string }) => x.code === 'question-file-wrong-kind');
    expect(f.args.lines).toBeGreaterThan(0);
  });
});
