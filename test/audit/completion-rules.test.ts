import { describe, expect, it } from 'vitest';
import { completionBaselines, exactMatch, targetCopyable } from '../../generator/core/questions/audit/completion-baselines.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { completion } from './build.js';

const codes = (qs: Parameters<typeof auditQuestions>[0]) => auditQuestions(qs).findings.map((f) => f.code);

/** `n` next-command questions; the first `same` of them answer `submit`, the rest a command of their own. */
function nextCommands(n: number, same: number) {
  return Array.from({ length: n }, (_, i) =>
    completion({ prompt: `Issue ${i}: fix the parser.\nObservation: tests pass.\nThe next command:\n`, answer_stem: 'The next command:\n', targets: [i < same ? 'submit' : `pytest tests/test_${i}.py -k case${i}`] }),
  );
}

describe('completion string rules', () => {
  it('fail a task whose most frequent answer is right well above the limit', () => {
    const found = codes(nextCommands(40, 20));
    expect(found).toContain('audit-completion-rule');
    const report = auditQuestions(nextCommands(40, 20)).report.tasks[0]!;
    expect(report.completionRules?.rules.most_frequent_target).toBeCloseTo(0.5, 5);
    expect(report.verdict).toBe('fail');
  });

  it('only warn below the gate size, and say nothing when no rule beats the limit', () => {
    expect(codes(nextCommands(12, 6))).toContain('audit-completion-rule-not-significant');
    expect(codes(nextCommands(12, 6))).not.toContain('audit-completion-rule');
    const clean = codes(nextCommands(40, 0));
    expect(clean).not.toContain('audit-completion-rule');
    expect(clean).not.toContain('audit-completion-rule-not-significant');
  });

  it('score the leave-one-out frequency: an answer given once is no rule for its own question', () => {
    const [b] = completionBaselines(nextCommands(30, 1));
    expect(b!.rules.most_frequent_target).toBe(0);
  });

  it('answer with the last line of the question', () => {
    const qs = Array.from({ length: 30 }, (_, i) => completion({ prompt: `Find the capital.\nObservation: the capital is\nCity${i}\nAnswer: `, answer_stem: 'Answer: ', targets: [`City${i}`] }));
    const [b] = completionBaselines(qs);
    expect(b!.rules.last_line).toBe(1);
    expect(b!.copyable).toBe(1);
    expect(codes(qs)).toContain('audit-completion-rule');
  });

  it('answer with the name the pages repeat most', () => {
    const goal = 'Who directed the film? '.padEnd(650, '.');
    const qs = Array.from({ length: 30 }, (_, i) => {
      const name = `Ana Lim${'a'.repeat(i + 1)}`;
      return completion({ prompt: `${goal}\nObservation: Directed by ${name}. ${name} said. Bob Stone wrote it.\nAnswer: `, answer_stem: 'Answer: ', targets: [name], metric: 'exact_match+rouge' });
    });
    expect(completionBaselines(qs)[0]!.rules.frequent_span).toBe(1);
  });

  it('count copyable targets at every length, as whole tokens, in any target', () => {
    const short = completion({ prompt: 'Q: spectral class?\nObs: it is G8, a giant.\nA: ', answer_stem: 'A: ', targets: ['G8'] });
    const alias = completion({ prompt: 'Q: who?\nObs: the director Guillermo Garza\nA: ', answer_stem: 'A: ', targets: ['吉列尔莫·加尔萨', 'Guillermo Garza'] });
    const inside = completion({ prompt: 'Q: tools?\nObs: tools listed\nA: ', answer_stem: 'A: ', targets: ['ls'] });
    expect([short, alias, inside].map(targetCopyable)).toEqual([true, true, false]);
  });

  it('leave metrics without an exact-match part unscored', () => {
    const calls = Array.from({ length: 30 }, () => completion({ prompt: 'Next call: ', answer_stem: 'Next call: ', targets: ['{"name":"submit"}'], metric: 'tool_call' }));
    expect(completionBaselines(calls)[0]!.rules).toEqual({});
    expect(codes(calls)).not.toContain('audit-completion-rule');
  });

  it('match answers after folding case, whitespace and closing punctuation', () => {
    const q = completion({ prompt: 'x', targets: ['Saratov State Agrarian University'] });
    expect(exactMatch(q, '  saratov state  agrarian university.')).toBe(true);
    expect(exactMatch(q, 'Saratov State University')).toBe(false);
    expect(exactMatch(q, '')).toBe(false);
  });
});
