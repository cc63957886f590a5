/**
 * Fluency targets (adversarial-fluency.ts): the gold may be the most fluent option in about 1/K
 * of a task-language's questions, drafts that can show it no other way fill those places first
 * and the rest are dropped, and every target is one the draft's candidates can meet.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { type FluencyRange, fluencyRange, planFluency } from '../../generator/core/questions/adversarial-fluency.js';

describe('fluency targets', () => {
  it('the feasible range counts pinned distractors and what the alternatives can add', () => {
    // Gold 0.5; one pinned distractor above it; alternatives 0.9, 0.1, 0.2; two more to choose.
    expect(fluencyRange(0.5, [0.7], [0.9, 0.1, 0.2], 2)).toEqual({ min: 1, max: 2 });
    // Only less fluent alternatives: the gold is the most fluent whatever is shown.
    expect(fluencyRange(0.5, [], [0.1, 0.2, 0.3], 3)).toEqual({ min: 0, max: 0 });
    // Too few less fluent alternatives to avoid showing a more fluent one.
    expect(fluencyRange(0.5, [], [0.9, 0.8, 0.1], 3)).toEqual({ min: 2, max: 2 });
    // A tie counts as at least as fluent.
    expect(fluencyRange(0.5, [], [0.5, 0.1, 0.1], 3)).toEqual({ min: 1, max: 1 });
  });

  function ranges(n: number, forcedShare: number, seed: string): FluencyRange[] {
    const rng = new Rng(seed);
    return Array.from({ length: n }, (_, i) => {
      if (rng.next() < forcedShare) return { id: `q${i}`, language: i % 3 === 0 ? 'zh' : 'en', options: 4, min: 0, max: 0 };
      const max = 1 + rng.int(3);
      return { id: `q${i}`, language: i % 3 === 0 ? 'zh' : 'en', options: 4, min: rng.int(max + 1), max };
    });
  }

  it('deals "gold most fluent" to a quarter of each language, forced drafts first, the excess dropped', () => {
    const rs = ranges(300, 0.35, 'forced');
    const plan = planFluency(rs, 'seed');
    for (const language of ['en', 'zh']) {
      const members = rs.map((_, i) => i).filter((i) => rs[i]!.language === language);
      const kept = members.filter((i) => !plan.dropped.has(i));
      const zeros = kept.filter((i) => plan.targets[i] === 0).length;
      expect(zeros).toBe(Math.round(members.length / 4));
      // Every forced draft is either a zero or dropped; nothing else is dropped.
      for (const i of members) if (rs[i]!.max === 0) expect(plan.targets[i] === 0 || plan.dropped.has(i)).toBe(true);
      for (const i of plan.dropped) expect(rs[i]!.max).toBe(0);
    }
    expect(plan.dropped.size).toBeGreaterThan(0);
    // Every target lies in its draft's range.
    rs.forEach((r, i) => {
      if (plan.dropped.has(i)) return;
      expect(plan.targets[i]).toBeGreaterThanOrEqual(r.min);
      expect(plan.targets[i]).toBeLessThanOrEqual(r.max);
    });
  });

  it('drops nothing when the candidates allow, and is deterministic', () => {
    const rs = ranges(200, 0.1, 'light');
    const plan = planFluency(rs, 'seed');
    expect(plan.dropped.size).toBe(0);
    expect(planFluency(rs, 'seed')).toEqual(plan);
    expect(planFluency([...rs].reverse(), 'seed').targets).toEqual([...plan.targets].reverse());
  });
});
