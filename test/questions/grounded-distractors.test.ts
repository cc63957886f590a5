import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex } from '../../generator/core/questions/corpus.js';
import { STEP_OPERATORS } from '../../generator/core/questions/operators/index.js';
import { argumentGrounding, pairFluency, priorText } from '../../generator/core/questions/operators/grounding.js';
import { candidateOf } from '../../generator/core/questions/plans.js';
import { traj } from './validity-fixtures.js';

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
