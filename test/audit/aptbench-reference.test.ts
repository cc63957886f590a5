import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { readAptbenchRows } from '../../generator/core/questions/audit/aptbench-rows.js';
import { hasSharedData, shared } from '../helpers/env.js';

const NAMES = ['issue_fix_locate', 'env_setup_error', 'deepresearch_plan_zh'] as const;
const file = (name: string) => shared('aptbench-reference', `${name}.sample5.jsonl`);
const rawRows = (name: string) => readFileSync(file(name), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

async function load(name: (typeof NAMES)[number]) {
  const read = await readAptbenchRows(nodeVfs, [file(name)]);
  expect(read.findings).toEqual([]);
  return { rows: rawRows(name), ...read };
}

// Released APTBench questions (five per task), read by the same reader as `aptpace audit --aptbench`:
// the audit runs on real question text and its counts agree with the raw rows.
describe.skipIf(!hasSharedData)('audit on released APTBench questions', () => {
  for (const name of NAMES) {
    it(`${name}: options parse verbatim, the letter histogram matches the answer column, segment and tools are reported as derived`, async () => {
      const { rows, questions } = await load(name);
      expect(questions).toHaveLength(rows.length);
      for (const [i, q] of questions.entries()) {
        expect(q.choices[q.gold]).toBeDefined();
        let at = 0;
        for (const c of q.choices) {
          const found = rows[i].choices.indexOf(c, at);
          expect(found).toBeGreaterThanOrEqual(at);
          at = found + c.length;
        }
      }
      const { report, findings } = auditQuestions(questions);
      const task = report.tasks[0]!;
      const fromRows: Record<string, number> = {};
      for (const r of rows) fromRows[r.answer] = (fromRows[r.answer] ?? 0) + 1;
      for (const [letter, count] of Object.entries(task.letters!.histogram)) expect(count).toBe(fromRows[letter] ?? 0);
      expect(findings.map((f) => f.code)).toContain('audit-low-power');
      // The rows carry no question offset: every segment is derived from the prompt.
      expect(task.segmentSources.field).toBe(0);
      expect(task.toolsSources.field).toBe(0);
      // APTBench's own sample has no copied or undeclared off-tool distractor.
      expect(task.defects).toMatchObject({ copiedOptions: 0, undeclaredInvalidTools: 0 });
    });
  }

  it('deep-research plan rows: the tool set is read from the listed tools, and the combined rule already beats chance on five rows', async () => {
    const { questions } = await load('deepresearch_plan_zh');
    const { report, findings } = auditQuestions(questions);
    const task = report.tasks[0]!;
    expect(task.toolsSources['tool-list']).toBe(5);
    const combined = task.shortcuts.find((s) => s.name === 'combined')!;
    // Golds D, D, D, B, C; in three of the five the option most similar to the others is the gold.
    expect(combined.correct).toBe(3);
    expect(combined.chance).toBeCloseTo(1 / 6, 12);
    // Exact tail P(X ≥ 3) for Binomial(5, 1/6) = 0.0355.
    expect(combined.pValue).toBeCloseTo(0.035493827, 6);
    expect(findings.filter((f) => f.severity === 'error').map((f) => [f.code, f.args.shortcut])).toEqual([['audit-shortcut-above-chance', 'combined']]);
  });

  it('option counts match what the reference notes report (4 for locate, 7 for env-setup errors, 6 for deep-research plans)', async () => {
    expect((await load('issue_fix_locate')).questions.map((q) => q.choices.length)).toEqual([4, 4, 4, 4, 4]);
    expect(new Set((await load('env_setup_error')).questions.map((q) => q.choices.length))).toEqual(new Set([7]));
    expect((await load('deepresearch_plan_zh')).questions.map((q) => q.choices.length)).toEqual([6, 6, 6, 6, 6]);
  });

  it('the Chinese rows are judged as Chinese by their question, though their observations are mostly English', async () => {
    expect((await load('deepresearch_plan_zh')).questions.map((q) => q.language)).toEqual(['zh', 'zh', 'zh', 'zh', 'zh']);
    expect(new Set((await load('issue_fix_locate')).questions.map((q) => q.language))).toEqual(new Set(['en']));
  });

  it('rows that are not MCQs are rejected with file and line, not crashed on', async () => {
    const read = await readAptbenchRows(nodeVfs, [shared('aptbench-reference', 'env_setup_action.sample5.jsonl')]);
    expect(read.tally).toEqual({ read: 5, accepted: 0, rejected: 5 });
    expect(read.findings.map((f) => [f.code, f.path.line])).toEqual([1, 2, 3, 4, 5].map((line) => ['question-schema', line]));
  });
});
