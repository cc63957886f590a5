import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import { auditQuestions, balanceLetters, SHORTCUTS } from '../../generator/core/questions/audit/index.js';
import { contextOf, words } from '../../generator/core/questions/audit/text.js';
import { runShortcut } from '../../generator/core/questions/audit/gate.js';
import type { Finding } from '../../generator/core/kernel/findings.js';
import type { McqQuestion, Question } from '../../generator/core/questions/types.js';
import { fixtures } from '../helpers/env.js';
import { completion, mcq } from './build.js';

async function load(name: string): Promise<Question[]> {
  const { questions, findings } = await readQuestions(nodeVfs, [fixtures('questions', name)]);
  expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
  return questions;
}
const codes = (qs: Question[], opts = {}) => auditQuestions(qs, opts).findings.map((f) => f.code);
const shortcut = (qs: Question[], name: string) => auditQuestions(qs).report.tasks[0]!.shortcuts.find((s) => s.name === name)!;

describe('shortcut baselines, hand-computed', () => {
  it('longest option splits ties and collapses whitespace', () => {
    const qs = [
      mcq({ choices: ['aaaa', 'bb', 'c'], gold: 0 }), // longest is gold: 1
      mcq({ choices: ['aa', 'bbbb', 'cc'], gold: 0 }), // 0
      mcq({ choices: ['aaa', 'bbb', 'c'], gold: 1 }), // tie of two: 1/2
      mcq({ choices: ['a   b', 'ab', 'abc'], gold: 0 }), // 'a b' ties 'abc': 1/2
    ];
    expect(SHORTCUTS.longest_option.credits(qs)).toEqual([1, 0, 0.5, 0.5]);
    const s = shortcut(qs, 'longest_option');
    expect(s.correct).toBe(2);
    expect(s.accuracy).toBe(0.5);
    expect(s.chance).toBeCloseTo(1 / 3, 12);
  });

  it('topic relevance ignores the rendered choice list and scores the share of option words in context', () => {
    const choices = ['open setup.py', 'delete README', 'run the tests now'];
    const listed = choices.map((c, i) => `(${'ABC'[i]}) ${c}`).join('\n');
    const withContext = mcq({ prompt: `Previous: I will open setup.py and run tests.\nChoices:\n${listed}\n`, choices, gold: 0 });
    // Only the choice list mentions these words: no option overlaps, a three-way tie.
    const withoutContext = mcq({ prompt: `Previous: nothing yet.\nChoices:\n${listed}\n`, choices, gold: 0 });
    expect(contextOf(withContext)).not.toContain('README');
    expect(SHORTCUTS.topic_relevance.credits([withContext, withoutContext])).toEqual([1, 1 / 3]);
    // run + tests of {run, the, tests, now} is 1/2, below open setup.py's 3/3, so making option C gold scores 0.
    expect(SHORTCUTS.topic_relevance.credits([{ ...withContext, gold: 2 }])).toEqual([0]);
  });

  it('words splits CJK text per character and keeps identifiers whole', () => {
    expect(words('Open src/flask/app.py: url_for()')).toEqual(['open', 'src', 'flask', 'app', 'py', 'url_for']);
    expect(words('浏览维基百科 page2')).toEqual(['浏', '览', '维', '基', '百', '科', 'page2']);
  });

  it('frequent letter is leave-one-out', () => {
    const skewed = [0, 0, 0, 1].map((gold) => mcq({ choices: ['x1', 'x2'], gold }));
    // Each A question sees A=2, B=1 among the others → right; the B question sees A=3 → wrong.
    expect(SHORTCUTS.letter_prior.credits(skewed)).toEqual([1, 1, 1, 0]);
    const balanced = [0, 1, 0, 1].map((gold) => mcq({ choices: ['x1', 'x2'], gold }));
    // Removing its own answer always tips the vote away from it: 0 by construction, and not a failure.
    expect(SHORTCUTS.letter_prior.credits(balanced)).toEqual([0, 0, 0, 0]);
    expect(auditQuestions(balanced).findings.filter((f) => f.args.shortcut === 'letter_prior')).toEqual([]);
  });

  it('chance and expected letter counts follow each question\'s own choice count', () => {
    const qs = [mcq({ choices: ['a', 'b'], gold: 1 }), mcq({ choices: ['a', 'bb', 'ccc', 'dddd'], gold: 3 })];
    const task = auditQuestions(qs).report.tasks[0]!;
    expect(task.chance).toBeCloseTo((1 / 2 + 1 / 4) / 2, 12);
    expect(task.letters!.expected).toEqual({ A: 0.75, B: 0.75, C: 0.25, D: 0.25 });
    expect(task.letters!.histogram).toEqual({ A: 0, B: 1, C: 0, D: 1 });
    expect(task.choiceCounts).toEqual({ '2': 1, '4': 1 });
  });
});

describe('the fail rule: beyond tolerance and significant', () => {
  // Gold is the longest option in half the questions (chance 1/4): +25 points.
  const pattern = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const gold = i % 4;
      const longest = i % 2 === 0 ? gold : (gold + 1) % 4;
      const choices = [0, 1, 2, 3].map((j) => `option ${i} ${j}${j === longest ? ' with more words' : ''}`);
      return mcq({ choices, gold });
    });

  it('warns when a small task is outside tolerance but not significant', () => {
    const small = pattern(8);
    expect(shortcut(small, 'longest_option').accuracy).toBe(0.5);
    expect(codes(small)).toContain('audit-shortcut-not-significant');
    expect(codes(small)).not.toContain('audit-shortcut-above-chance');
    expect(codes(small)).toContain('audit-low-power');
  });

  it('fails when the same bias is seen on enough questions', () => {
    const large = pattern(80);
    expect(shortcut(large, 'longest_option').accuracy).toBe(0.5);
    expect(codes(large)).toContain('audit-shortcut-above-chance');
  });

  it('passes a significant deviation inside the gain limit, fails it with a tighter one', () => {
    // 2000 questions, the longest option is gold in 580 (29%): +4 points, p ≈ 3e-5.
    const qs = Array.from({ length: 2000 }, (_, i) => {
      const gold = i % 4;
      const longest = i < 580 ? gold : (gold + 1 + (i % 3)) % 4;
      return mcq({ choices: [0, 1, 2, 3].map((j) => `o${i}-${j}${j === longest ? '-long' : ''}`), gold });
    });
    // The rule's gate as the audit runs it (its default limit of 10 points and alpha 0.05); the
    // whole audit of 2,000 questions would also cross-fit the learned adversary three times,
    // which this rule does not need. --max-shortcut-gain reaching this gate through the audit
    // and the CLI is tested in rules.test.ts and build-gate.test.ts.
    const atLimit = (gain: number) => {
      const out: Finding[] = [];
      return { result: runShortcut('t', 'longest_option', qs, gain, 0.05, out), codes: out.map((f) => f.code) };
    };
    const s = atLimit(10);
    expect(s.result.accuracy).toBeCloseTo(0.29, 12);
    expect(s.result.pValue).toBeLessThan(0.001);
    expect(s.codes.filter((c) => c.startsWith('audit-shortcut'))).toEqual([]);
    expect(atLimit(3).codes).toContain('audit-shortcut-above-chance');
  });

  it('flags a shortcut that is reliably wrong', () => {
    // The longest option is never gold: avoiding it beats chance.
    const qs = Array.from({ length: 80 }, (_, i) => mcq({ choices: [0, 1, 2, 3].map((j) => `o${i}${j === (i + 1) % 4 ? ' longer' : ''}`), gold: i % 4 }));
    expect(shortcut(qs, 'longest_option').accuracy).toBe(0);
    expect(codes(qs)).toContain('audit-shortcut-below-chance');
  });
});

describe('fixtures', () => {
  it('a balanced set passes with no error or warning', async () => {
    const { findings, report } = auditQuestions(await load('balanced-plan.jsonl'));
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(report.verdict).toBe('pass');
    expect(report.tasks[0]!.letters!.histogram).toEqual({ A: 12, B: 12, C: 12, D: 12 });
  });

  it('gold-is-longest fails on longest_option (and, since only the gold carries the extra words, on most_similar avoiding it)', async () => {
    const { findings } = auditQuestions(await load('biased-longest.jsonl'));
    const failing = findings.filter((f) => f.severity === 'error');
    expect(failing.map((f) => [f.code, f.args.shortcut])).toEqual([
      ['audit-shortcut-above-chance', 'longest_option'],
      ['audit-shortcut-below-chance', 'most_similar'],
      // The learned adversary finds the same length cue.
      ['audit-adversary-above-chance', undefined],
    ]);
  });

  it('gold-is-always-A fails letter balance and the frequent-letter shortcut', async () => {
    const failing = auditQuestions(await load('biased-letter.jsonl')).findings.filter((f) => f.severity === 'error');
    // The hand-written options also carry a surface cue the learned adversary's trees find
    // (held out: 26 of 40), beside the letters.
    expect(failing.map((f) => f.code).sort()).toEqual(['audit-adversary-above-chance', 'audit-letter-imbalance', 'audit-shortcut-above-chance']);
    expect(failing.find((f) => f.code === 'audit-shortcut-above-chance')!.args.shortcut).toBe('letter_prior');
    expect(failing.find((f) => f.code === 'audit-adversary-above-chance')!.args.learner).toBe('trees');
  });

  it('distractors with invented names fail on context overlap', async () => {
    const failing = auditQuestions(await load('biased-overlap.jsonl')).findings.filter((f) => f.code === 'audit-shortcut-above-chance');
    expect(failing.map((f) => f.args.shortcut)).toEqual(['topic_relevance']);
  });

  it('leaks and duplicates are found', async () => {
    const qs = await load('leaky.jsonl');
    const found = auditQuestions(qs).findings;
    expect(found.filter((f) => f.code === 'audit-gold-leaked').map((f) => f.args.id)).toEqual([qs[1]!.id]);
    expect(found.filter((f) => f.code === 'audit-duplicate-question').map((f) => [f.args.id, f.args.firstId])).toEqual([[qs[8]!.id, qs[2]!.id]]);
    expect(found.filter((f) => f.code === 'audit-duplicate-prompt').map((f) => [f.args.id, f.args.firstId])).toEqual([[qs[9]!.id, qs[3]!.id]]);
  });
});

describe('per-question checks', () => {
  it('identical options after normalisation, with and without the gold', () => {
    const q1 = mcq({ choices: ['Run pytest.', 'run   PYTEST', 'open setup.py'], gold: 0 });
    const q2 = mcq({ choices: ['open a.py', 'Open A.py;', 'run pytest'], gold: 2 });
    const found = auditQuestions([q1, q2]).findings;
    expect(found.filter((f) => f.code === 'audit-distractor-equals-gold').map((f) => [f.args.id, f.path.field])).toEqual([[q1.id, 'choices[1]']]);
    expect(found.filter((f) => f.code === 'audit-duplicate-distractors').map((f) => [f.args.id, f.args.first, f.args.second])).toEqual([[q2.id, 'A', 'B']]);
  });

  it('gold shared with distractors in the context is a warning, not a leak', () => {
    const choices = ['python -m pytest tests/test_a.py', 'python -m pytest tests/test_b.py', 'git diff HEAD~1 -- setup.cfg'];
    const q = mcq({ prompt: `ran: python -m pytest tests/test_a.py; python -m pytest tests/test_b.py\nChoices: ${choices.join(' | ')}\n`, choices, gold: 0 });
    expect(codes([q])).toContain('audit-gold-in-context');
    expect(codes([q])).not.toContain('audit-gold-leaked');
  });

  it('short golds are not leak-checked; long completion targets are', () => {
    const short = mcq({ prompt: 'ls\nls\n', choices: ['ls', 'pwd'], gold: 0 });
    const target = completion({ prompt: 'earlier: pip install -e .[dev]\nnext:', targets: ['pip install -e .[dev]'] });
    const shortTarget = completion({ prompt: 'earlier: ls\nnext:', targets: ['ls'] });
    expect(codes([short])).not.toContain('audit-gold-leaked');
    const found = auditQuestions([target, shortTarget]).findings.filter((f) => f.code === 'audit-target-in-prompt');
    expect(found.map((f) => f.args)).toEqual([{ task: target.task, count: 1, total: 2, ids: [target.id] }]);
  });

  it('malformed MCQs and duplicate ids are reported, not crashed on', () => {
    const bad = mcq({ choices: ['a', 'b'], gold: 5 });
    const one = mcq({ choices: ['only'], gold: 0 });
    const twin = mcq({ id: 'same', choices: ['a', 'b'], gold: 0 });
    const found = codes([bad, one, twin, { ...twin, prompt: 'other prompt' }]);
    expect(found.filter((c) => c === 'audit-invalid-mcq')).toHaveLength(2);
    expect(found).toContain('audit-duplicate-id');
  });

  it('the report is deterministic and does not depend on input order', async () => {
    const qs = [...(await load('balanced-plan.jsonl')), ...(await load('leaky.jsonl'))];
    const a = auditQuestions(qs).report;
    const b = auditQuestions([...qs].reverse()).report;
    expect(stableStringify(a)).toBe(stableStringify(b));
  });
});

describe('balanceLetters', () => {
  it('turns an all-A set into a balanced one, keeping every question\'s options and gold text', async () => {
    const before = (await load('biased-letter.jsonl')) as McqQuestion[];
    const after = balanceLetters(before, new Rng('seed-1')) as McqQuestion[];
    expect(after.map((q) => q.id)).toEqual(before.map((q) => q.id));
    after.forEach((q, i) => {
      const original = before[i]!;
      expect(q.choices[q.gold]).toBe(original.choices[original.gold]);
      expect([...q.choices].sort()).toEqual([...original.choices].sort());
    });
    const task = auditQuestions(after).report.tasks[0]!;
    expect(task.letters!.histogram).toEqual({ A: 10, B: 10, C: 10, D: 10 });
    // Balancing moves letters, not option texts: the options' own cue (above) stays, and only it.
    expect(auditQuestions(after).findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['audit-adversary-above-chance']);
  });

  it('is deterministic per seed and independent of input order', async () => {
    const qs = await load('biased-letter.jsonl');
    const a = balanceLetters(qs, new Rng('s'));
    const b = balanceLetters([...qs].reverse(), new Rng('s')).reverse();
    expect(stableStringify(a)).toBe(stableStringify(b));
    const c = balanceLetters(qs, new Rng('other'));
    expect(stableStringify(c)).not.toBe(stableStringify(a));
  });

  it('spreads the remainder letters when the count is not a multiple of K', () => {
    const qs = Array.from({ length: 6 }, (_, i) => mcq({ id: `r${i}`, choices: ['a', 'b', 'c', 'd'], gold: 0 }));
    const seen = new Set<string>();
    for (const seed of ['1', '2', '3', '4', '5', '6', '7', '8']) {
      const hist = auditQuestions(balanceLetters(qs, new Rng(seed))).report.tasks[0]!.letters!.histogram;
      expect(Object.values(hist).sort()).toEqual([1, 1, 2, 2]);
      seen.add(Object.entries(hist).filter(([, c]) => c === 2).map(([l]) => l).join(''));
    }
    expect(seen.size).toBeGreaterThan(1);
  });

  it('moves per-choice sources with their choices and leaves completions alone', () => {
    const q = mcq({ id: 'm', choices: ['gold', 'd1', 'd2'], gold: 0, build: { seed: 's', template: 't', choice_sources: ['gold', 'op1', 'op2'] } });
    const c = completion({ prompt: 'p', targets: ['t'] });
    const [moved, same] = balanceLetters([q, c], new Rng('x')) as [McqQuestion, Question];
    moved.choices.forEach((choice, i) => expect(moved.build.choice_sources![i]).toBe(choice === 'gold' ? 'gold' : choice === 'd1' ? 'op1' : 'op2'));
    expect(same).toBe(c);
  });
});

describe('frequent-letter significance is simulated, because its successes are correlated', () => {
  it('the Monte Carlo p-value agrees with exact enumeration of all gold assignments', () => {
    // Five 6-option questions, gold D, D, D, B, C (a real 5-row sample of APTBench plan_zh has this shape).
    const golds = [3, 3, 3, 1, 2];
    const qs = golds.map((gold) => mcq({ choices: ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'ffffff'], gold }));
    const observed = SHORTCUTS.letter_prior.credits(qs).reduce((s, c) => s + c, 0);
    expect(observed).toBe(3);
    let asExtreme = 0;
    const total = 6 ** 5;
    for (let code = 0; code < total; code++) {
      let rest = code;
      const assignment = qs.map((q) => {
        const gold = rest % 6;
        rest = Math.floor(rest / 6);
        return { ...q, gold };
      });
      if (SHORTCUTS.letter_prior.credits(assignment).reduce((s, c) => s + c, 0) >= observed - 1e-9) asExtreme++;
    }
    const exact = asExtreme / total;
    const reported = auditQuestions(qs).report.tasks[0]!.shortcuts.find((s) => s.name === 'letter_prior')!;
    expect(Math.abs(reported.pValue - exact)).toBeLessThan(0.02);
    // Treating the votes as independent would have called this significant; the exact null does not.
    expect(exact).toBeGreaterThan(0.05);
  });
});

describe('frequent-letter fast null path', () => {
  it('totalForGolds equals the summed credits for random tasks with mixed choice counts', () => {
    const rng = new Rng('fast-path');
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + rng.int(30);
      const qs = Array.from({ length: n }, () => {
        const k = 2 + rng.int(6);
        return mcq({ choices: Array.from({ length: k }, (_, j) => `o${j}`), gold: rng.int(k) });
      });
      const slow = SHORTCUTS.letter_prior.credits(qs).reduce((s, c) => s + c, 0);
      const fast = SHORTCUTS.letter_prior.totalForGolds!(Int32Array.from(qs, (q) => q.choices.length), Int32Array.from(qs, (q) => q.gold));
      expect(fast).toBeCloseTo(slow, 12);
    }
  });
});

describe('few-shot split', () => {
  it('is left out of letter and shortcut statistics but still checked per question', () => {
    const test = [0, 1, 2, 3].map((gold) => mcq({ choices: ['w', 'x', 'y', 'z'], gold }));
    const shots = [0, 0, 0, 0].map(() => mcq({ split: 'fewshot', choices: ['same', 'same', 'b', 'c'], gold: 0 }));
    const { report, findings } = auditQuestions([...test, ...shots]);
    const task = report.tasks[0]!;
    expect(task).toMatchObject({ questions: 8, mcq: 8, fewshot: 4, choiceCounts: { '4': 4 } });
    expect(task.letters!.histogram).toEqual({ A: 1, B: 1, C: 1, D: 1 });
    expect(findings.filter((f) => f.code === 'audit-distractor-equals-gold')).toHaveLength(4);
  });
});
