import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { hasSharedData, shared } from '../helpers/env.js';
import { mcq } from './build.js';

/**
 * Splits APTBench's rendered choice string into options. Options are introduced by `(A) `,
 * `(B) `, … in order, at the start or after whitespace (env_setup/error puts them inline).
 * Searching for the next expected letter only keeps `(B)` inside an option's text from
 * being taken for a marker unless it is the next letter.
 */
export function splitChoices(rendered: string): string[] {
  const starts: number[] = [];
  let from = 0;
  for (let i = 0; i < 26; i++) {
    const marker = `(${String.fromCharCode(65 + i)}) `;
    let at = rendered.indexOf(marker, from);
    while (at > 0 && !/\s/.test(rendered[at - 1]!)) at = rendered.indexOf(marker, at + 1);
    if (at < 0) break;
    starts.push(at);
    from = at + marker.length;
  }
  return starts.map((s, i) => rendered.slice(s + 4, starts[i + 1] ?? rendered.length).trim());
}

const sources = {
  issue_fix_locate: (r: any) => `Issue:\n${r.issue_statement}`,
  env_setup_error: (r: any) => `Setup:\n${r.setup_instruct}\nIssue: ${r.issue_title}\n${r.issue_body}`,
  deepresearch_plan_zh: (r: any) => `Question: ${r.query}\nExecuted trajectory: ${r.trajectory}`,
} as const;

function load(name: keyof typeof sources): { rows: any[]; questions: McqQuestion[] } {
  const rows = readFileSync(shared('aptbench-reference', `${name}.sample5.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const questions = rows.map((r, i) => {
    const choices = splitChoices(r.choices);
    return mcq({ id: `${name}-${i}`, task: `aptbench_${name}`, prompt: `${sources[name](r)}\nChoices: ${r.choices}\n`, choices, gold: r.answer.charCodeAt(0) - 65 });
  });
  return { rows, questions };
}

// Released APTBench questions (five per task): the audit runs on real question text and its
// counts agree with the raw rows. Five questions cannot show a bias (see audit-low-power).
describe.skipIf(!hasSharedData)('audit on released APTBench questions', () => {
  for (const name of Object.keys(sources) as Array<keyof typeof sources>) {
    it(`${name}: options parse, the letter histogram matches the answer column, and the task is flagged low-power`, () => {
      const { rows, questions } = load(name);
      for (const [i, q] of questions.entries()) {
        expect(q.gold).toBeLessThan(q.choices.length);
        // Every parsed option is verbatim in the raw choice string, in order.
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
      expect(findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual([]);
    });
  }

  it('option counts match what the reference notes report (4 for locate, 7 for env-setup errors, 6 for deep-research plans)', () => {
    expect(load('issue_fix_locate').questions.map((q) => q.choices.length)).toEqual([4, 4, 4, 4, 4]);
    expect(new Set(load('env_setup_error').questions.map((q) => q.choices.length))).toEqual(new Set([7]));
    expect(load('deepresearch_plan_zh').questions.map((q) => q.choices.length)).toEqual([6, 6, 6, 6, 6]);
  });
});
