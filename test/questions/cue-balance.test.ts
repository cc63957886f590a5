import { describe, expect, it } from 'vitest';
import { optionFeatures } from '../../generator/core/questions/audit/features.js';
import { topicRelevance } from '../../generator/core/questions/audit/shortcuts/topic-relevance.js';
import { Rng } from '../../generator/core/kernel/rng.js';
import { balanceCue, similarCredit, topicContext, topicCredit, topicShares } from '../../generator/core/questions/types/cues.js';
import { mostSimilar } from '../../generator/core/questions/audit/shortcuts/most-similar.js';
import { mcq } from '../audit/build.js';

/**
 * The builder balances the cue the audit measures: `topicShares` must be the audit's
 * `topic_relevance` score, and the chosen subsets must give the gold chance credit on average.
 */
const trajectory = 'Question: Which university did Ernest Rutherford lead as Cavendish Professor after Manchester?\nStep 1: Search Rutherford Manchester 1919 Cambridge';
const gold = 'Search Ernest Rutherford Cavendish Professor Cambridge appointment';
const pool = [
  'Search Ernest Rutherford Manchester 1919', // fully on-topic: more than the gold
  'Search Cavendish Professor Cambridge university', // fully on-topic
  'Search Hezekiah Allen baseball birthplace 1863', // off-topic (a borrowed step left unadapted)
  'Browse Kirsty Coventry swimming records page', // off-topic
  'Search Manchester university physics history', // partly on-topic
  'Open the Nobel prize chemistry 1908 list', // partly on-topic
].map((text) => ({ value: { text } }));

describe('topic cue balancing', () => {
  it('scores topic relevance exactly as the audit does', () => {
    const choices = [gold, ...pool.slice(0, 3).map((p) => p.value.text)];
    const q = mcq({ prompt: `${trajectory}\nChoices:\n${choices.map((c, i) => `(${String.fromCharCode(65 + i)}) ${c}`).join('\n')}\nThe correct next step is (`, question_start: 0, choices, gold: 0 });
    const audit = optionFeatures(q).relevance;
    const builder = topicShares(choices, topicContext([trajectory]));
    builder.forEach((x, i) => expect(x).toBeCloseTo(audit[i]!, 12));
    expect(topicCredit(choices, topicContext([trajectory]))).toBeCloseTo(topicRelevance.credits([q])[0]!, 12);
    expect(similarCredit(choices)).toBeCloseTo(mostSimilar.credits([q])[0]!, 12);
  });

  it('gives the gold chance credit on average where the pool allows it', () => {
    const context = topicContext([trajectory]);
    let credit = 0;
    const runs = 400;
    for (let s = 0; s < runs; s++) {
      const { picked, topicForced } = balanceCue(new Rng(`s${s}`), gold, pool, 3, context);
      expect(topicForced).toBe(false);
      expect(new Set(picked).size).toBe(3);
      credit += topicCredit([gold, ...picked.map((p) => p.value.text)], context);
    }
    // Expected exactly 1/4 per question; 400 draws keep the mean within a few points.
    expect(credit / runs).toBeGreaterThan(0.19);
    expect(credit / runs).toBeLessThan(0.31);
  });

  it('flags a gold more on-topic than any choice of distractors can hide', () => {
    const context = topicContext([trajectory]);
    const offTopic = pool.filter((p) => /Hezekiah|Kirsty|Nobel|physics/.test(p.value.text));
    const { topicForced } = balanceCue(new Rng('x'), gold, offTopic, 3, context);
    expect(topicForced).toBe(true);
  });
});
