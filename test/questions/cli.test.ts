import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import { cli } from '../helpers/cli.js';
import { fixtures } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('aptpace-build-');
const out = (name: string) => path.join(dir, name);
const fast = ['--tokenizer', 'chars'];

describe('aptpace build', () => {
  it('writes schema-valid questions and reports counts per kind and skip reasons', async () => {
    const r = await cli('build', fixtures('canonical'), '--out', out('q.jsonl'), '--seed', '7', ...fast, '--json');
    // The audit's verdict on these questions is tested in test/audit/build-gate.test.ts; here the
    // builder itself must raise no error, and the exit code follows the findings.
    const allErrors = r.json.findings.filter((f: { severity: string }) => f.severity === 'error');
    expect(r.code).toBe(allErrors.length ? 1 : 0);
    expect(r.json.data.by_kind.plan_mcq).toBeGreaterThan(0);
    expect(r.json.data.skipped['plan_mcq:no-thoughts']).toBe(1);
    expect(r.json.data.skipped['trajectory:unproven']).toBe(1);
    expect(r.json.data.trajectories.rejected).toBe(0);
    const back = await readQuestions(nodeVfs, [out('q.jsonl')]);
    expect(back.findings).toEqual([]);
    expect(back.questions.length).toBe(r.json.data.questions);
    expect(allErrors.filter((f: { code: string }) => !f.code.startsWith('audit-'))).toEqual([]);

    const text = await cli('build', fixtures('canonical'), '--out', out('q-text.jsonl'), '--seed', '7', ...fast, '-q');
    expect(text.stdout).toMatch(/^ {2}plan_mcq +\d+ /m);
    expect(text.stdout).toMatch(/^ {2}plan_mcq:no-thoughts +1$/m);
    // Same inputs and seed: byte-identical files.
    expect(readFileSync(out('q-text.jsonl'))).toEqual(readFileSync(out('q.jsonl')));
  });

  it('never overwrites without --force', async () => {
    writeFileSync(out('mine.jsonl'), 'my notes\n');
    const r = await cli('build', fixtures('canonical', 'swe-basic.jsonl'), '--out', out('mine.jsonl'), ...fast, '--json');
    // Updated: output-exists is a usage error (exit 2), issue 12.
    expect(r.code).toBe(2);
    expect(r.json.findings.map((f: { code: string }) => f.code)).toEqual(['output-exists']);
    expect(readFileSync(out('mine.jsonl'), 'utf8')).toBe('my notes\n');
    const forced = await cli('build', fixtures('canonical', 'swe-basic.jsonl'), '--out', out('mine.jsonl'), ...fast, '--force', '--no-audit', '-q');
    expect(forced.code).toBe(0);
    expect(readFileSync(out('mine.jsonl'), 'utf8')).toMatch(/^\{"answer_stem":/);
  });

  it('rejects bad flags with exit code 2', async () => {
    for (const flags of [['--kinds', 'plan_mcq,nope'], ['--tokenizer', 'gpt5'], ['--choices', '1'], ['--budget-tokens', 'many'], ['--llm-endpoint', 'http://x'], ['--format', 'nope']]) {
      const r = await cli('build', fixtures('canonical'), '--out', out('bad.jsonl'), ...flags);
      expect(r.code, flags.join(' ')).toBe(2);
    }
    expect(() => statSync(out('bad.jsonl'))).toThrow();
  });

  it('exits 1 when an input line is rejected but still builds from the rest', async () => {
    const input = out('mixed.jsonl');
    copyFileSync(fixtures('canonical', 'swe-basic.jsonl'), input);
    writeFileSync(input, `${readFileSync(input, 'utf8')}{"schema_version": "traj/1", "broken": \n`);
    const r = await cli('build', input, '--out', out('mixed-q.jsonl'), ...fast, '--json');
    expect(r.code).toBe(1);
    const errors = r.json.findings.filter((f: { severity: string }) => f.severity === 'error');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].path).toMatchObject({ file: input, line: 5 });
    expect(r.json.data.trajectories.rejected).toBe(1);
    expect(r.json.data.questions).toBeGreaterThan(0);
  });

  it('keeps only approved questions with --require-review', async () => {
    const built = (await readQuestions(nodeVfs, [out('q.jsonl')])).questions;
    const [a, b] = built;
    const status = out('status.jsonl');
    writeFileSync(status, `${JSON.stringify({ id: a!.id, status: 'approved' })}\n${JSON.stringify({ id: b!.id, status: 'rejected' })}\n`);
    const r = await cli('build', fixtures('canonical'), '--out', out('reviewed.jsonl'), '--seed', '7', ...fast, '--require-review', status, '--no-audit', '--json');
    expect(r.code).toBe(0);
    const kept = (await readQuestions(nodeVfs, [out('reviewed.jsonl')])).questions;
    expect(kept.map((q) => q.id)).toEqual([a!.id]);
    expect(r.json.findings.map((f: { code: string }) => f.code)).toContain('build-review-unapproved');
    const missing = await cli('build', fixtures('canonical'), '--out', out('reviewed2.jsonl'), ...fast, '--require-review', out('nope.jsonl'));
    expect(missing.code).toBe(1);
  });

  it('uses a user template folder', async () => {
    const tpl = out('tpl');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(tpl);
    writeFileSync(path.join(tpl, 'dr_answer_tc.hbs'), 'Q: {{question.goal}}\n{{question.answer_stem}}\n');
    const r = await cli('build', fixtures('canonical', 'deep-research.jsonl'), '--out', out('tpl.jsonl'), '--kinds', 'dr_answer_tc', '--templates', tpl, ...fast, '-q');
    expect(r.code).toBe(0);
    const qs = (await readQuestions(nodeVfs, [out('tpl.jsonl')])).questions;
    expect(qs.map((q) => q.prompt)).toEqual([
      'Q: Which lighthouse on the island of Fictoria was the first to use an electric lamp, and in what year?\nThe answer is [',
      'Q: What is the length in kilometres of the longest river that flows through the town of Brennick?\nThe answer is [',
    ]);
  });
});
