import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildQuestions, lengthBucketsByKind } from '../../generator/core/questions/build.js';
import { renderWithinBudget, TRIMMED_OBSERVATION_CHARS } from '../../generator/core/questions/render.js';
import type { TokenCounter } from '../../generator/core/questions/tokenizer.js';
import type { QuestionDraft } from '../../generator/core/questions/types/module.js';
import type { StepView } from '../../generator/core/questions/views.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { fixtures } from '../helpers/env.js';

/** One token per character: budgets below are worked out by hand from string lengths. */
const chars: TokenCounter = { name: 'chars', count: (s: string) => s.length } as TokenCounter;

const step = (n: number, obsChars: number): StepView => ({
  number: n, plan: `plan ${n}`, thought: null, action: `act ${n}`, raw: `act ${n}`, tool: null, args: {},
  observation: `<obs ${n}>` + String(n).repeat(obsChars) + `</obs ${n}>`, cut: false,
});
const draft = (steps: number, obsChars: number, tools = 'TOOLS[a,b,c]'): QuestionDraft => ({
  kind: 'next_action_mcq', step: steps, fields: { goal: 'the goal', tools }, history: Array.from({ length: steps }, (_, i) => step(i + 1, obsChars)),
  answerStem: 'Answer: (', answerSuffix: ')', mcq: { choices: ['x', 'y'], gold: 0, sources: ['gold', 'other'] },
});
/** A template that shows, per example, its tool list (when it has one) and every step. */
const render = (ctx: any): string => {
  const ex = (q: any) => `${q.tools ? `Tool set:\n${q.tools}\n` : ''}Goal: ${q.goal}\n${q.omitted ? `[${q.omitted} earlier steps]\n` : ''}${q.history.map((v: StepView) => `${v.action}\n${v.observation}\n`).join('')}${q.answer_stem}`;
  return `Intro\n${ctx.shots.map((s: any) => `${ex(s)}${s.answer}\n\n`).join('')}${ex(ctx.question)}`;
};

describe('budgeted rendering of long histories', () => {
  const q = draft(6, 1000);
  const full = renderWithinBudget(render, q, [], chars, 1_000_000);

  it('shows the whole history when it fits, and reports the full length', () => {
    expect(full.omittedSteps).toBe(0);
    expect(full.trimmedObservations).toBe(0);
    expect(full.truncated).toBe(false);
    expect(full.tokens).toBe(full.fullTokens);
    for (let n = 1; n <= 6; n++) expect(full.prompt).toContain(String(n).repeat(1000));
  });

  it('trims the oldest observations first, only as many as needed, keeping head and tail', () => {
    // Cutting one observation saves about 1000 - 400 characters: a budget 300 short needs one cut, 900 short two.
    for (const [short, cuts] of [[300, 1], [900, 2]] as const) {
      const r = renderWithinBudget(render, q, [], chars, full.tokens - short);
      expect(r.tokens).toBeLessThanOrEqual(full.tokens - short);
      expect(r.omittedSteps).toBe(0);
      expect(r.trimmedObservations).toBe(cuts);
      expect(r.truncated).toBe(true);
      for (let n = 1; n <= 6; n++) {
        expect(r.prompt).toContain(`<obs ${n}>`);
        expect(r.prompt).toContain(`</obs ${n}>`);
        expect(r.prompt.includes(String(n).repeat(1000)), `step ${n}`).toBe(n > cuts);
      }
      expect(r.tokens).toBeGreaterThan(full.tokens - short - TRIMMED_OBSERVATION_CHARS * 2);
    }
  });

  it('drops the oldest steps only when every observation is already trimmed', () => {
    const r = renderWithinBudget(render, q, [], chars, 1500);
    expect(r.omittedSteps).toBeGreaterThan(0);
    expect(r.tokens).toBeLessThanOrEqual(1500);
    expect(r.prompt).toContain('act 6');
    expect(r.prompt).not.toContain('act 1\n');
    expect(r.prompt).toContain(`[${r.omittedSteps} earlier steps]`);
  });

  it('gives the tool list once per prompt, not once per shot', () => {
    const shots = [draft(2, 10, 'TOOLS[a,b,c]'), draft(3, 10, 'TOOLS[a,b,c]')];
    const r = renderWithinBudget(render, q, shots, chars, 1_000_000);
    expect(r.shotsUsed).toBe(2);
    expect(r.prompt.split('TOOLS[a,b,c]').length - 1).toBe(1);
    expect(r.prompt.split('Tool set:').length - 1).toBe(1);
  });
});

describe('--min-tokens and length buckets', () => {
  const load = (file: string) => readFileSync(fixtures('new-kinds', file), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Trajectory);
  const all = [...load('setup-errors.jsonl'), ...load('tool-calls.jsonl'), ...load('dr-citations.jsonl')];

  it('skips, counted, the questions whose prompt stays shorter than the target, and keeps the rest unchanged', async () => {
    const base = await buildQuestions(all, { seed: 'lc', kinds: ['issue_fix_tool_call_tc'], shots: 0 });
    const tokens = base.questions.map((q) => q.prompt_tokens).sort((a, b) => a - b);
    expect(new Set(tokens).size).toBeGreaterThan(1);
    const min = tokens[Math.floor(tokens.length / 2)]!;
    const targeted = await buildQuestions(all, { seed: 'lc', kinds: ['issue_fix_tool_call_tc'], shots: 0, minTokens: min });
    const expected = base.questions.filter((q) => q.prompt_tokens >= min);
    expect(targeted.questions.map((q) => q.id)).toEqual(expected.map((q) => q.id));
    expect(targeted.skipped['issue_fix_tool_call_tc:below-min-tokens']).toBe(base.questions.length - expected.length);
    expect(base.questions.length - expected.length).toBeGreaterThan(0);
    await expect(buildQuestions(all, { minTokens: 40000, budgetTokens: 32768 })).rejects.toThrow(RangeError);
  });

  it('counts every kind in every bucket, zeros included', () => {
    const mk = (kind: string, length_bucket: string) => ({ kind, length_bucket }) as any;
    expect(lengthBucketsByKind([mk('a', '<=4K'), mk('a', '16-32K'), mk('b', '>32K'), mk('a', '16-32K')])).toEqual({
      a: { '<=4K': 1, '4-16K': 0, '16-32K': 2, '>32K': 0 },
      b: { '<=4K': 0, '4-16K': 0, '16-32K': 0, '>32K': 1 },
    });
  });
});
