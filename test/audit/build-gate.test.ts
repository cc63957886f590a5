import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';
import type { Question } from '../../generator/core/questions/types.js';
import { cli } from '../helpers/cli.js';
import { fixtures, hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { plantedSet, type Plant } from './planted.js';

const dir = tempDir('aptpace-gate-');
function file(name: string, questions: Question[]): string {
  const target = path.join(dir, `${name}.jsonl`);
  writeFileSync(target, questions.map((q) => `${stableStringify(q)}\n`).join(''));
  return target;
}
const planted = (plant: Plant, n?: number) => file(`${plant}-${n ?? 'all'}`, plantedSet(plant, { recorded: true, ...(n ? { n } : {}) }));
const errorCodes = (json: any) => [...new Set(json.findings.filter((f: any) => f.severity === 'error').map((f: any) => (f.args.shortcut ? `${f.code}:${f.args.shortcut}` : f.code)))].sort();

describe('aptpace audit: the gate', () => {
  it('a set without shortcuts or defects passes (exit 0)', async () => {
    const r = await cli('audit', planted('none'), '--json');
    expect(errorCodes(r.json)).toEqual([]);
    expect(r.code).toBe(0);
  });

  it('copied and undeclared off-tool distractors fail unconditionally, with the combined rule (exit 1)', async () => {
    const r = await cli('audit', planted('copy+off_tool'), '--json');
    expect(r.code).toBe(1);
    expect(errorCodes(r.json)).toEqual(
      expect.arrayContaining(['audit-option-copied', 'audit-undeclared-invalid-tool', 'audit-shortcut-above-chance:combined']),
    );
    // Deterministic defects do not need power: two questions are enough to fail.
    const small = await cli('audit', planted('copy+off_tool', 2), '--json');
    expect(small.code).toBe(1);
    expect(errorCodes(small.json)).toEqual(['audit-option-copied', 'audit-undeclared-invalid-tool']);
  });

  it('--max-shortcut-gain sets the limit of the statistical gate', async () => {
    const similar = planted('similar');
    expect((await cli('audit', similar)).code).toBe(1);
    const lenient = await cli('audit', similar, '--max-shortcut-gain', '80', '--json');
    expect(lenient.json.data.report.maxShortcutGain).toBe(80);
    expect(errorCodes(lenient.json)).toEqual([]);
    expect(lenient.code).toBe(0);
  });

  it('a gain above the limit that is not significant warns; --strict fails it', async () => {
    const small = planted('similar', 2);
    const plain = await cli('audit', small, '--json');
    expect(plain.code).toBe(0);
    expect(plain.json.findings.filter((f: any) => f.code === 'audit-shortcut-not-significant').map((f: any) => f.args.shortcut)).toContain('combined');
    expect((await cli('audit', small, '--strict')).code).toBe(1);
  });

  it('--table prints one Markdown row per task with every rule and what was derived', async () => {
    const r = await cli('audit', planted('none'), planted('letter'), '--table');
    const lines = r.stdout.split('\n').filter((l) => l.startsWith('|'));
    expect(lines[0]).toBe(
      '| task | n | chance | longest_option | most_similar | copy_elimination | offered_tool | topic_relevance | letter_prior | combined | combined 95% CI | combined p | adversary en | adversary zh | copied · off-tool distractors | near-dup groups | segment / tools derived | verdict |',
    );
    // Both files are one task (aptpace_dr_plan_mcq): 400 questions, segment and tools recorded.
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^\| aptpace_dr_plan_mcq \| 400 \| 25\.0% \|.*\| 0 · 0 \| 0 \| 0\/400 · 0\/400 \| fail \|$/);
  });

  it.skipIf(!hasSharedData)("--aptbench reads APTBench's released rows: its deep-research plan sample fails the combined rule", async () => {
    const files = ['issue_fix_locate', 'env_setup_error', 'deepresearch_plan_zh'].map((n) => shared('aptbench-reference', `${n}.sample5.jsonl`));
    const r = await cli('audit', '--aptbench', ...files, '--json');
    expect(r.json.data.tally).toEqual({ read: 15, accepted: 15, rejected: 0 });
    expect(errorCodes(r.json)).toEqual(['audit-shortcut-above-chance:combined']);
    expect(r.code).toBe(1);
  });
});

describe('aptpace build: the same gate', () => {
  it('rejects a bad --max-shortcut-gain with exit 2', async () => {
    expect((await cli('build', fixtures('canonical'), '--out', path.join(dir, 'bad.jsonl'), '--max-shortcut-gain', 'ten')).code).toBe(2);
  });

  it('runs the audit with --max-shortcut-gain; its findings and exit code agree with `aptpace audit` on the written file', async () => {
    const out = path.join(dir, 'built.jsonl');
    const built = await cli('build', fixtures('canonical'), '--out', out, '--seed', '7', '--tokenizer', 'chars', '--max-shortcut-gain', '15', '--json');
    expect(built.json.data.audit.maxShortcutGain).toBe(15);
    const audited = await cli('audit', out, '--max-shortcut-gain', '15', '--json');
    const auditOf = (json: any) => json.findings.filter((f: any) => f.code.startsWith('audit-')).map((f: any) => stableStringify(f));
    expect(auditOf(built.json)).toEqual(auditOf(audited.json));
    const anyError = built.json.findings.some((f: any) => f.severity === 'error');
    expect(built.code).toBe(anyError ? 1 : 0);
    // The statistical gate never fires above 100 points: only deterministic defects can fail then.
    const lenient = await cli('build', fixtures('canonical'), '--out', path.join(dir, 'lenient.jsonl'), '--seed', '7', '--tokenizer', 'chars', '--max-shortcut-gain', '100', '--json');
    expect(lenient.json.findings.filter((f: any) => f.code === 'audit-shortcut-above-chance')).toEqual([]);
  });
});
