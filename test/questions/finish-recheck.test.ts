/**
 * A finish gold's distractors are built as a swap question's are (a re-check: an earlier step
 * with another entity in one place), and a premature finish stands in only among drafts of its
 * finish gold's style. Otherwise "three near-identical options beside a finish: not the finish"
 * and "diverse options beside a finish: the finish" both find the gold (on the shared builds the
 * finish was the gold in 18 of 23 questions with borrowed distractors that offered one, and in
 * none of the 45 swap questions that did, seeds 0–2). Re-checks repeat a line of the prompt,
 * so they pair only with questions whose options repeat one as closely: paired with any swap
 * question, the finish was the gold in 19 of 33 questions whose options repeated an executed step
 * and in none of 45 whose options were a new step.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex } from '../../generator/core/questions/corpus.js';
import { pairFinishesOf } from '../../generator/core/questions/finish-pairs.js';
import { drPlanMcq } from '../../generator/core/questions/types/dr-plan-mcq.js';
import type { KindContext, McqDraft, QuestionDraft } from '../../generator/core/questions/types/module.js';
import { changedWords as changed, traj } from './validity-fixtures.js';

const search = (plan: string, text: string, obs: string) => ({ plan, tool: 'web_search', args: { text }, obs });
const finish = { plan: 'Indicate task completion as the answer has been found.', tool: 'task_complete', args: {}, obs: null };

const sahel = traj('dr-sahel-finish', 'deep_research', 'Who was the President of Niger on March 27, 2025?', [
  search('Search for the head of state of Niger.', 'Niger head of state 2025', 'title: Politics of the Sahel\nbody: The President of Chad met the presidents of Mali and Benin in Niamey. Abdourahamane Tchiani leads Niger.\nurl: https://example.org/sahel'),
  search('Find the President of Niger on March 27, 2025.', 'President of Niger March 27 2025', 'title: Niger\nbody: On March 27, 2025 the President of Niger was Abdourahamane Tchiani.\nurl: https://example.org/niger'),
  finish,
], { framework: 'infodeepseek', answer: 'Abdourahamane Tchiani' });

function context(corpus: ReturnType<typeof traj>[]): KindContext {
  return { rng: new Rng('recheck'), corpus: new CorpusIndex(corpus), choices: 4, maxPerTrajectory: 10, observationChars: 2000, planHistory: 'plans' };
}

describe('a finish gold among re-check swaps', () => {
  it('offers an earlier step of the run with another entity in one place, the same place in every distractor, none copied', () => {
    const { drafts } = drPlanMcq.generate(sahel, context([sahel]));
    const atFinish = drafts.find((d) => d.step === 2);
    expect(atFinish, 'the finish anchor is asked').toBeDefined();
    const mcq = atFinish!.mcq!;
    expect(mcq.swap).toBeDefined();
    const distractors = mcq.choices.filter((_, i) => i !== mcq.gold).map((c) => JSON.parse(c) as { planning: string; execution: { name: string; args: { text: string } } });
    expect(distractors).toHaveLength(3);
    expect(mcq.sources.filter((s) => s !== 'gold')).toEqual(['off_target_argument', 'off_target_argument', 'off_target_argument']);
    // The latest earlier step with a place to swap is the one re-checked: step 2's search.
    const base = 'President of Niger March 27 2025';
    const places = distractors.map((d) => changed(base, d.execution.args.text));
    expect(new Set(places.map((p) => `${p.at}:${p.from}`)).size).toBe(1);
    expect(places[0]!.from).toBe('Niger');
    for (const d of distractors) {
      expect(d.execution.name).toBe('web_search');
      expect(d.execution.args.text).not.toBe(base);
      expect(d.planning).not.toContain('Niger');
    }
    for (const r of mcq.reasons!.filter((_, i) => i !== mcq.gold)) expect(r).toMatch(/^step 2 again, about .+ instead of Niger: the run has its answer and finishes here$/);
    // The re-checks repeat a shown step closely; the real next step at step 2 repeats one less.
    const atSearch = drafts.find((d) => d.step === 1)!.mcq!;
    expect(mcq.swap!.echo).toBeGreaterThan(0.7);
    expect(atSearch.swap!.echo).toBeLessThan(mcq.swap!.echo - 0.15);
  });
});

describe('premature finishes stand in only beside finish golds of the same style', () => {
  const run = traj('dr-style', 'deep_research', 'Which river flows through Niamey?', [search('Search the river of Niamey.', 'Niamey river', 'The Niger.'), finish]);
  const draft = (step: number, style: boolean, finishGold: boolean): QuestionDraft => {
    const mcq: McqDraft = {
      choices: [finishGold ? 'the finish' : 'gold', 'a', 'b', 'c'],
      gold: 0,
      sources: ['gold', 'x', 'y', 'z'],
      ...(finishGold ? {} : { finishOption: { text: 'finish now', source: 'premature_submit', reason: 'finishes early' } }),
      ...(style ? { swap: { echo: 0 } } : {}),
    };
    return { kind: 'dr_plan_mcq', step, fields: {}, history: [], answerStem: '', answerSuffix: ')', mcq };
  };
  const entry = (id: string, d: QuestionDraft, finishGold: boolean) => ({ id, draft: d, t: finishGold ? run : { ...run, steps: [run.steps[0]!, run.steps[0]!, run.steps[1]!] } });

  it('pairs a finish gold whose options repeat a shown step only with questions whose options repeat one as closely', () => {
    const echoed = (id: string, step: number, finishGold: boolean, echo: number) => {
      const d = draft(step, true, finishGold);
      d.mcq!.swap = { echo };
      return entry(id, d, finishGold);
    };
    const entries = [echoed('gold', 1, true, 0.9), ...['n1', 'n2', 'n3'].map((id) => echoed(id, 1, false, 0.2)), ...['e1', 'e2', 'e3'].map((id) => echoed(id, 1, false, 0.8))];
    expect(pairFinishesOf(entries, () => 'cell', 4, 'seed').unpaired).toBe(0);
    expect(entries.filter((e) => e.draft.mcq!.choices.includes('finish now')).map((e) => e.id).sort()).toEqual(['e1', 'e2', 'e3']);
    const lonely = [echoed('gold', 1, true, 0.9), ...['n1', 'n2', 'n3', 'n4'].map((id) => echoed(id, 1, false, 0.2))];
    expect(pairFinishesOf(lonely, () => 'cell', 4, 'seed').unpaired).toBe(1);
    expect(lonely.some((e) => e.draft.mcq!.choices.includes('finish now'))).toBe(false);
    expect(lonely.every((e) => e.draft.mcq!.swap === undefined)).toBe(true);
  });

  it('pairs a swap-style finish gold with swap-style partners only, and drops a mixed-style one that has none', () => {
    const entries = [
      entry('gold-swap', draft(1, true, true), true),
      entry('gold-mixed', draft(1, false, true), true),
      ...['p1', 'p2', 'p3', 'p4'].map((id) => entry(id, draft(1, true, false), false)),
      entry('m1', draft(1, false, false), false),
    ];
    const { kept, unpaired } = pairFinishesOf(entries, () => 'cell', 4, 'seed');
    expect(unpaired).toBe(1);
    expect(kept.map((e) => e.id)).not.toContain('gold-mixed');
    const offered = entries.filter((e) => e.draft.mcq!.choices.includes('finish now')).map((e) => e.id);
    expect(offered).toHaveLength(3);
    for (const id of offered) expect(id).toMatch(/^p/);
    // The style marks are the pairing's own: no draft keeps one.
    expect(entries.every((e) => e.draft.mcq!.swap === undefined && e.draft.mcq!.finishOption === undefined)).toBe(true);
  });
});
