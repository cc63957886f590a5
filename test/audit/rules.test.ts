import { describe, expect, it } from 'vitest';
import { auditQuestions, SHORTCUTS, type ShortcutName } from '../../generator/core/questions/audit/index.js';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { runPython } from './python.js';
import { plantedSet, type Plant } from './planted.js';

// The audit is pure and deterministic: one audit per question set serves every assertion on it.
// These tests read the rules only, so the learned adversary (tested in adversary*.test.ts) is
// left out; the last test here shows the rules' results are the same with it.
const RULES_ONLY = { learnedAdversary: false } as const;
const audits = new WeakMap<McqQuestion[], ReturnType<typeof auditQuestions>>();
const audited = (qs: McqQuestion[]) => {
  let a = audits.get(qs);
  if (!a) audits.set(qs, (a = auditQuestions(qs, RULES_ONLY)));
  return a;
};
const result = (qs: McqQuestion[], name: ShortcutName) => audited(qs).report.tasks[0]!.shortcuts.find((s) => s.name === name)!;
const shortcutFindings = (qs: McqQuestion[]) =>
  audited(qs)
    .findings.filter((f) => f.code.startsWith('audit-shortcut'))
    .map((f) => `${f.code}:${f.args.shortcut}`);

describe('each rule finds the shortcut planted for it', () => {
  const cases: Array<[Plant, ShortcutName, number]> = [
    // plant, rule, accuracy the rule must reach (chance is 25%)
    ['copy', 'copy_elimination', 0.5], // two of three distractors repeat the history: a guess among the other two
    ['off_tool', 'offered_tool', 0.5], // two of three distractors call open_website, which is not offered
    ['similar', 'most_similar', 0.95], // distractors are the gold with one word changed
    ['relevance', 'topic_relevance', 0.95], // only the gold uses the question's words
    ['length', 'longest_option', 1],
    ['letter', 'letter_prior', 1],
  ];
  for (const [plant, rule, atLeast] of cases) {
    it(`${rule} on a set with the "${plant}" shortcut`, () => {
      const qs = plantedSet(plant);
      const s = result(qs, rule);
      expect(s.accuracy).toBeGreaterThanOrEqual(atLeast - 1e-9);
      expect(s.chance).toBe(0.25);
      expect(s.verdict).toBe('fail');
      expect(shortcutFindings(qs)).toContain(`audit-shortcut-above-chance:${rule}`);
    });
  }

  it('no rule beats chance on a set without a planted shortcut', () => {
    const qs = plantedSet('none');
    const { report, findings } = auditQuestions(qs);
    for (const s of report.tasks[0]!.shortcuts) {
      // Within 8 points at n = 200 (letter_prior is below chance by construction: gains only).
      if (s.name !== 'letter_prior') expect(Math.abs(s.excessPoints), s.name).toBeLessThan(8);
      expect(s.verdict, s.name).toBe('pass');
    }
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
  });

  it('the combined rule chains the filters: copies and off-tool options together leave only the gold', () => {
    const qs = plantedSet('copy+off_tool');
    expect(result(qs, 'copy_elimination').accuracy).toBeCloseTo(0.5, 12);
    expect(result(qs, 'offered_tool').accuracy).toBeCloseTo(1 / 3, 12);
    const combined = result(qs, 'combined');
    expect(combined.accuracy).toBe(1);
    expect(combined.verdict).toBe('fail');
  });

  it('the combined rule uses similarity after the filters (the planted-similarity set)', () => {
    expect(result(plantedSet('similar'), 'combined').accuracy).toBeGreaterThan(0.95);
    expect(result(plantedSet('none'), 'combined').verdict).toBe('pass');
  });
});

describe('rules read the question segment, not the shots', () => {
  it('topic relevance: the shots quote every distractor\'s words; with the whole prompt as segment the cue is diluted', () => {
    const derived = plantedSet('relevance');
    const wholePrompt = derived.map((q) => ({ ...q, question_start: 0 }));
    const onSegment = result(derived, 'topic_relevance').accuracy;
    const onWhole = result(wholePrompt, 'topic_relevance').accuracy;
    expect(onSegment).toBeGreaterThan(0.95);
    expect(onWhole).toBeLessThan(onSegment - 0.3);
  });

  it('a recorded question_start and offered_tools give the same result as deriving them from the prompt', () => {
    for (const plant of ['none', 'off_tool', 'relevance'] as const) {
      const derived = auditQuestions(plantedSet(plant), RULES_ONLY).report.tasks[0]!;
      const recorded = auditQuestions(plantedSet(plant, { recorded: true }), RULES_ONLY).report.tasks[0]!;
      expect(stableStringify(recorded.shortcuts)).toBe(stableStringify(derived.shortcuts));
      expect(derived.segmentSources).toEqual({ field: 0, 'after-shots': 200, 'whole-prompt': 0 });
      expect(derived.toolsSources).toEqual({ field: 0, 'tool-list': 200, none: 0 });
      expect(recorded.segmentSources.field).toBe(200);
      expect(recorded.toolsSources.field).toBe(200);
    }
  });
});

describe('the statistics of the gate', () => {
  it('the combined rule\'s p-value is the exact Poisson-binomial upper tail (checked against numpy by convolution)', () => {
    // Mixed option counts so chance differs per question.
    const qs = plantedSet('similar', { n: 60 }).map((q, i) => (i % 3 === 0 ? { ...q, choices: q.choices.slice(0, 3), gold: Math.min(q.gold, 2) } : q));
    const s = result(qs, 'combined');
    const credits = SHORTCUTS.combined.credits(qs);
    const k = Math.floor(credits.reduce((a, b) => a + b, 0) + 1e-9);
    const probabilities = qs.map((q) => 1 / q.choices.length);
    const expected = runPython<number>(
      `import json,sys,numpy as np\nd=json.load(sys.stdin)\npmf=np.array([1.0])\nfor p in d['p']:\n    pmf=np.convolve(pmf,[1-p,p])\nprint(json.dumps(float(pmf[d['k']:].sum())))`,
      { p: probabilities, k },
    );
    expect(s.pValue).toBeCloseTo(expected, 12);
    expect(s.chance).toBeCloseTo(probabilities.reduce((a, b) => a + b, 0) / qs.length, 12);
  });

  it('above the limit but not significant is a warning, not an error', () => {
    // Two questions, both right: 100% vs 25%, but P(X ≥ 2) = 1/16 > 0.05.
    const small = plantedSet('copy+off_tool', { n: 2 });
    const codes = shortcutFindings(small);
    expect(codes).toContain('audit-shortcut-not-significant:combined');
    expect(codes).not.toContain('audit-shortcut-above-chance:combined');
  });

  it('--max-shortcut-gain moves the limit: a +25-point gain fails at 10 and passes at 30', () => {
    const qs = plantedSet('copy');
    expect(result(qs, 'copy_elimination').excessPoints).toBeCloseTo(25, 9);
    expect(auditQuestions(qs, { ...RULES_ONLY, maxShortcutGain: 30 }).findings.filter((f) => f.args.shortcut === 'copy_elimination')).toEqual([]);
    expect(auditQuestions(qs, { ...RULES_ONLY, maxShortcutGain: 10 }).findings.filter((f) => f.args.shortcut === 'copy_elimination').map((f) => f.code)).toEqual(['audit-shortcut-above-chance']);
  });
});

describe('the rules without the learned adversary', () => {
  it('give the same results, findings and verdicts as in the whole audit, which adds the adversary', () => {
    const qs = plantedSet('copy+off_tool');
    const whole = auditQuestions(qs);
    const rulesOnly = audited(qs);
    expect(stableStringify(rulesOnly.report.tasks[0]!.shortcuts)).toBe(stableStringify(whole.report.tasks[0]!.shortcuts));
    expect(rulesOnly.findings.filter((f) => f.code.startsWith('audit-shortcut'))).toEqual(whole.findings.filter((f) => f.code.startsWith('audit-shortcut')));
    expect(whole.report.tasks[0]!.adversary).not.toBeNull();
    expect(rulesOnly.report.tasks[0]!.adversary).toBeNull();
  });
});
