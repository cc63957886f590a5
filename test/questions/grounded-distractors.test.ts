import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex } from '../../generator/core/questions/corpus.js';
import { STEP_OPERATORS } from '../../generator/core/questions/operators/index.js';
import { sameSlotSwaps } from '../../generator/core/questions/operators/off-target-argument.js';
import { argumentGrounding, pairFluency, priorText } from '../../generator/core/questions/operators/grounding.js';
import { candidateOf } from '../../generator/core/questions/plans.js';
import { changedWords as changed, traj } from './validity-fixtures.js';

const search = (plan: string, text: string, obs: string) => ({ plan, tool: 'web_search', args: { text }, obs });

/** A run that met a one-word title ("President"), two countries and two full names before asking about one of them. */
const niger = traj('dr-niger', 'deep_research', 'Who was the President of Niger on March 27, 2025, and which medals did Kenta Nishimoto win?', [
  search('Search for the head of state of Niger.', 'Niger head of state 2025', 'title: Politics of Chad and Niger\nbody: The President of Chad met the President of Niger. Benin borders both. Abdourahamane Tchiani leads Niger.\nurl: https://example.org/sahel'),
  search('Search for Kenta Nishimoto medals.', 'Kenta Nishimoto medals', 'title: Kenta Nishimoto\nbody: Kenta Nishimoto won bronze. Viktor Axelsen won gold.\nurl: https://example.org/badminton'),
  search('Find the President of Niger on March 27, 2025.', 'President of Niger March 27 2025', 'title: Niger\nbody: Tchiani.\nurl: https://example.org/niger'),
]);

describe('entity swaps are type-compatible and fluent in this context', () => {
  it('never put a one-word title where a full name stood, and prefer the swap the context words in that order', () => {
    const gold = candidateOf(niger.steps[2]!);
    const proposed = STEP_OPERATORS.off_target_argument.propose({ rng: new Rng('swap'), trajectory: niger, position: 2, gold, corpus: new CorpusIndex([niger]) });
    const texts = proposed.map((p) => String(p.action.args.text));
    // "Niger" becomes the country the context writes as "President of Chad", not "Benin" (never after "of").
    expect(texts).toContain('President of Chad March 27 2025');
    expect(texts).not.toContain('President of Benin March 27 2025');
    const nishimoto = STEP_OPERATORS.off_target_argument.propose({
      rng: new Rng('swap'),
      trajectory: niger,
      position: 2,
      gold: { ...candidateOf(niger.steps[1]!), plan: 'Search for Kenta Nishimoto medals.' },
      corpus: new CorpusIndex([niger]),
    });
    for (const p of nishimoto) expect(String(p.action.args.text)).not.toMatch(/^(President|Niger|Chad|Benin) medals$/);
  });
});

describe('borrowed steps search with words the context shows', () => {
  const other = traj('dr-badminton', 'deep_research', 'Which medals did the BWF president win at the Olympics?', [
    search('Search for the BWF president.', 'BWF president', 'title: BWF\nbody: Poul-Erik Hoyer Larsen.\nurl: https://example.org/bwf'),
    search('Search for Olympic badminton medal tables by federation officials.', 'Olympic badminton medal table federation officials Atlanta 1996 shuttle', 'title: 1996\nbody: gold.\nurl: https://example.org/1996'),
    search('Search the medals of Viktor Axelsen.', 'Viktor Axelsen medals', 'title: Axelsen\nbody: gold.\nurl: https://example.org/axelsen'),
  ]);

  it('drop a borrowed step most of whose argument words the context never showed', () => {
    const gold = candidateOf(niger.steps[2]!);
    const corpus = new CorpusIndex([niger, other]);
    const proposed = STEP_OPERATORS.borrowed_step.propose({ rng: new Rng('b'), trajectory: niger, position: 2, gold, corpus, offered: new Set(['web_search']) });
    const seen = priorText(niger, 2);
    for (const p of proposed) expect(argumentGrounding(p, seen)).toBeGreaterThanOrEqual(0.8);
    expect(proposed.map((p) => String(p.action.args.text))).not.toContain('Olympic badminton medal table federation officials Atlanta 1996 shuttle');
  });

  it('measure grounding and fluency against the goal and earlier steps only', () => {
    const goalOnly = priorText(niger, 0);
    expect(argumentGrounding(candidateOf(niger.steps[1]!), goalOnly)).toBe(1);
    expect(argumentGrounding(candidateOf(niger.steps[0]!), goalOnly)).toBe(3 / 5); // "head" and "state" are not in the goal
    const seen = priorText(niger, 1);
    expect(pairFluency('President of Chad', seen)).toBe(1);
    expect(pairFluency('President of Benin', seen)).toBe(0.5);
  });
});

describe('same-slot swaps (dr_plan_mcq): every distractor fills the same place of the gold', () => {
  const sahel = traj('dr-sahel', 'deep_research', 'Who was the President of Niger on March 27, 2025?', [
    search('Search for the head of state of Niger.', 'Niger head of state 2025', 'title: Politics of the Sahel\nbody: The President of Chad met the presidents of Mali and Benin in Niamey. Abdourahamane Tchiani leads Niger.\nurl: https://example.org/sahel'),
    search('Find the President of Niger on March 27, 2025.', 'President of Niger March 27 2025', 'title: Niger\nbody: Tchiani.\nurl: https://example.org/niger'),
  ]);

  it('swaps one entity the context shows for others the context shows, the same entity in every option', () => {
    const gold = candidateOf(sahel.steps[1]!);
    const swaps = sameSlotSwaps({ rng: new Rng('slot'), trajectory: sahel, position: 1, gold, corpus: new CorpusIndex([sahel]) }, 2, 0);
    expect(swaps).toHaveLength(2);
    const goldArgs = String(gold.action.args.text);
    const diffs = swaps.map((s) => changed(goldArgs, String(s.action.args.text)));
    // One place, the same in both: the options differ from each other as they differ from the gold.
    expect(new Set(diffs.map((d) => `${d.at}:${d.from}`)).size).toBe(1);
    // The country is swapped (for the ones the context speaks of as "President of …"), not the title.
    expect(diffs[0]!.from).toBe('Niger');
    const seen = priorText(sahel, 1);
    for (const d of diffs) for (const w of d.to.toLowerCase().split(/\s+/)) expect(seen.words.has(w)).toBe(true);
  });

  it('replaces an entity the context never showed by entities it never showed either, from similar tasks', () => {
    const here = traj('dr-taufik', 'deep_research', 'Which Olympic medals did the Indonesian badminton player who won in Athens win, and when?', [
      search('Search for Indonesian badminton Olympic champions.', 'Indonesian badminton Olympic champion Athens', 'title: Indonesia at the Olympics\nbody: Indonesia has won gold medals in badminton.\nurl: https://example.org/indonesia'),
      search('Search for the medals of Taufik Hidayat.', 'Taufik Hidayat Olympic medals', 'title: Taufik\nbody: gold in 2004.\nurl: https://example.org/taufik'),
    ]);
    const other = traj('dr-lin', 'deep_research', 'Which Olympic medals did the Chinese badminton player Lin Dan win?', [
      search('Search for Lin Dan medals.', 'Lin Dan Olympic medals', 'title: Lin Dan\nbody: Lin Dan beat Peter Gade and Lee Hyun; Chen Long and Viktor Axelsen came later.\nurl: https://example.org/lin'),
      search('Search for Chen Long medals.', 'Chen Long Olympic medals', 'title: Chen Long\nbody: gold in 2016.\nurl: https://example.org/chen'),
    ]);
    const gold = candidateOf(here.steps[1]!);
    const swaps = sameSlotSwaps({ rng: new Rng('slot'), trajectory: here, position: 1, gold, corpus: new CorpusIndex([here, other]) }, 3, 0);
    expect(swaps).toHaveLength(3);
    const seen = priorText(here, 1);
    for (const s of swaps) {
      const d = changed(String(gold.action.args.text), String(s.action.args.text));
      expect(d.from).toBe('Taufik Hidayat');
      // A new name is met by new names: "the option whose name the context never showed" is no cue.
      for (const w of d.to.toLowerCase().split(/\s+/)) expect(seen.words.has(w)).toBe(false);
      expect(s.plan).toContain(d.to);
    }
  });
});
