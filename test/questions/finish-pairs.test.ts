import { describe, expect, it } from 'vitest';
import { type FinishCandidate, offerFinish, pairFinishes, stepTolerance } from '../../generator/core/questions/finish-pairs.js';
import type { McqDraft, QuestionDraft } from '../../generator/core/questions/types/module.js';

const FINISH = { text: 'finish now', source: 'premature_submit', reason: 'finishes early' };

function mcq(withFinish: boolean): McqDraft {
  return {
    choices: ['a', 'gold', 'b', 'c'],
    gold: 1,
    sources: ['x', 'gold', 'y', 'z'],
    reasons: ['ra', '', 'rb', 'rc'],
    // The filter's order of preference: b first, then c, then a, then d (not shown).
    alternatives: ['b', 'c', 'a', 'd'].map((text) => ({ text, source: 's', reason: 'r' })),
    ...(withFinish ? { finishOption: { ...FINISH } } : {}),
  };
}

function candidate(key: string, step: number, options: { gold?: boolean; finish?: boolean; cell?: string } = {}): FinishCandidate {
  const draft = { step, mcq: mcq(options.finish ?? false) } as unknown as QuestionDraft;
  if (options.gold) draft.mcq!.choices[1] = 'the finish';
  return { draft, finishGold: options.gold ?? false, cell: options.cell ?? 'en', key };
}

const offers = (cs: FinishCandidate[]) => cs.flatMap((c, i) => (c.draft.mcq!.choices.includes(FINISH.text) ? [i] : []));

describe('offering a premature finish', () => {
  it('replaces the shown distractor the filter prefers least, pinned (out of the alternatives), keeping the gold where it is', () => {
    const m = mcq(true);
    offerFinish(m);
    expect(m.choices).toEqual(['finish now', 'gold', 'b', 'c']);
    expect(m.sources).toEqual(['premature_submit', 'gold', 'y', 'z']);
    expect(m.reasons).toEqual(['finishes early', '', 'rb', 'rc']);
    expect(m.alternatives!.map((a) => a.text)).toEqual(['b', 'c', 'd']);
    expect(m.finishOption).toBeUndefined();
  });

  it('pairs each finish gold with K − 1 partners showing its number of steps, in its own cell, else drops it', () => {
    const cs = [
      candidate('g1', 3, { gold: true }),
      ...['p1', 'p2', 'p3', 'p4'].map((k) => candidate(k, 3, { finish: true })),
      candidate('near', 4, { finish: true }),
      // Seven steps: no partner within its tolerance (0), so dropped.
      candidate('g2', 7, { gold: true }),
      // Another language's partners never pair with this one's golds.
      ...['z1', 'z2', 'z3'].map((k) => candidate(k, 7, { finish: true, cell: 'zh' })),
    ];
    const unpaired = pairFinishes(cs, 4, 's');
    expect([...unpaired]).toEqual([6]);
    const offered = offers(cs);
    expect(offered).toHaveLength(3);
    for (const i of offered) expect(cs[i]!.draft.step).toBe(3);
    expect(cs.every((c) => c.draft.mcq!.finishOption === undefined)).toBe(true);
  });

  it('widens the step window in long runs only, and is deterministic with the seed', () => {
    expect([0, 3, 7, 8, 16, 40].map(stepTolerance)).toEqual([0, 0, 0, 1, 2, 5]);
    const make = () => [candidate('g', 40, { gold: true }), ...[33, 36, 38, 44, 45, 47].map((s, j) => candidate(`p${j}`, s, { finish: true }))];
    const a = make();
    const b = make();
    expect(pairFinishes(a, 4, 'x').size).toBe(0);
    pairFinishes(b, 4, 'x');
    expect(offers(a)).toEqual(offers(b));
    // The nearest three within five steps of 40 (36 and 44 tie at four): never 45, 33 or 47.
    expect(offers(a).map((i) => a[i]!.draft.step!).sort((x, y) => x - y)).toEqual([36, 38, 44]);
  });
});
