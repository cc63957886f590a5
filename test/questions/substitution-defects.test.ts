/**
 * Entity substitution (off_target_argument, and borrowed_step's adaptation to this trajectory)
 * must write only well-formed text. Three defect classes of real seed-0 builds, each pinned on
 * trajectories made here: words glued or cut ("AprilEuropean Union" from "Donau-Universität
 * Krems"), repeated words ("the first president of President") and malformed dates
 * ("17年1月" for "2025年1月").
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex } from '../../generator/core/questions/corpus.js';
import { replaceInCandidate, replaceWhole } from '../../generator/core/questions/operators/edit.js';
import { STEP_OPERATORS } from '../../generator/core/questions/operators/index.js';
import { entitiesIn } from '../../generator/core/questions/operators/off-target-argument.js';
import type { StepCandidate } from '../../generator/core/questions/operators/types.js';
import type { Step, Trajectory } from '../../generator/core/trajectories/types.js';
import { loadCanonical } from './fixtures.js';

const base = loadCanonical('deep-research')[0]!;

/** A deep-research trajectory of web_search steps: [plan, query, observation] each. */
function trajectory(id: string, goal: string, steps: Array<[string, string, string]>): Trajectory {
  return {
    ...structuredClone(base),
    traj_id: `dr:${id}:0`,
    task: { ...base.task, instance_id: id, goal, language: /[\u4e00-\u9fff]/.test(goal) ? 'zh' : 'en' },
    steps: steps.map(([plan, text, observation], index): Step => ({
      index,
      thought: null,
      plan,
      action: { kind: 'tool_call', tool: 'web_search', args: { text }, text: `web_search ${JSON.stringify({ text })}`, raw: null },
      observation,
      obs_meta: null,
      stage: null,
    })),
  };
}

const goldAt = (t: Trajectory, i: number): StepCandidate => ({ plan: t.steps[i]!.plan!, planGiven: true, action: t.steps[i]!.action });

/** Every string a candidate shows: plan, action text and arguments. */
const shown = (c: StepCandidate) => [c.plan, c.action.text, ...Object.values(c.action.args).map(String)];

function propose(op: 'off_target_argument' | 'borrowed_step', t: Trajectory, position: number, corpus = new CorpusIndex([t])): StepCandidate[] {
  const out: StepCandidate[] = [];
  for (const seed of ['0', '1', '2', '3', '4', '5']) out.push(...STEP_OPERATORS[op].propose({ rng: new Rng(seed), trajectory: t, position, gold: goldAt(t, position), corpus }));
  return out;
}

describe('substitution replaces whole tokens only', () => {
  it('never a part of a hyphenated or non-Latin word, and never glues the replacement to its neighbours', () => {
    expect(replaceWhole('from Donau-Universität Krems', 'Donau-', 'April')).toBe('from Donau-Universität Krems');
    expect(replaceWhole('from Donau-Universität Krems', 'Universität Krems', 'European Union')).toBe('from Donau-Universität Krems');
    expect(replaceWhole('Юрий Напсович', 'Напсо', 'Иванов')).toBe('Юрий Напсович');
    expect(replaceWhole('city"Oslo" and "Oslo"', '"Oslo"', 'Bergen')).toBe('city"Oslo" and Bergen');
    // Possessives, CJK and digits next to CJK still count as boundaries.
    expect(replaceWhole("Tchiani's coup", 'Tchiani', 'Bazoum')).toBe("Bazoum's coup");
    expect(replaceWhole('诺曼·雷诺兹的作品', '雷诺兹', '卡特')).toBe('诺曼·卡特的作品');
    expect(replaceWhole('2017年1月', '17', '22')).toBe('2017年1月');
    expect(replaceWhole('2017年1月', '2017', '2022')).toBe('2022年1月');
    expect(replaceWhole('Allen (1863-1916)', '1916', '1920')).toBe('Allen (1863-1920)');
  });

  it('names are whole tokens: hyphenated names entire, never a piece of a longer word', () => {
    const names = (s: string) => entitiesIn(s).filter((e) => e.type === 'name').map((e) => e.text);
    expect(names('Verify the degree of Karl Nehammer from Donau-Universität Krems')).toEqual(['Karl Nehammer', 'Donau-Universität Krems']);
    expect(names('The winner was Poul-Erik Høyer Larsen of Denmark.')).toEqual(['Poul-Erik Høyer Larsen', 'Denmark']);
    expect(names('a report by ByteDance and McKinsey')).toEqual([]);
    expect(names('Did Karl Nehammer study law?')).toEqual(['Karl Nehammer']);
    const numbers = (s: string) => entitiesIn(s).filter((e) => e.type === 'number').map((e) => e.text);
    expect(numbers('the 2017-18 season, 12,500 fans, 3.25 goals, in 2019.')).toEqual(['2019']);
    expect(numbers('Allen (1863-1916) was born on 2025-03-24.')).toEqual(['1863', '1916', '24']);
  });

  it('a borrowed step adapted to this trajectory has no glued or cut words (was "AprilEuropean Union")', () => {
    const here = trajectory('eu-gini', 'What was the Gini index of the European Union in April 2012, per the Karl Nehammer master degree report?', [
      ['Search the Gini index of the European Union.', 'European Union Gini index 2012', 'Eurostat says the European Union had a Gini index of 30.4 in April 2012. Karl Nehammer obtained his master degree in political communication.'],
      // A place of study the borrowed step's university can become (a name of its class, name-class.ts).
      ['Verify where Karl Nehammer obtained his master degree.', 'Karl Nehammer master degree political communication', 'Karl Nehammer obtained his master degree in April from a university in Wiener Neustadt.'],
      ['Search the Gini report again.', 'European Union Gini report', 'The report of April 2012 lists the European Union members.'],
    ]);
    const other = trajectory('nehammer', 'Where did Karl Nehammer obtain his master degree in political communication?', [
      ['Search Karl Nehammer education.', 'Karl Nehammer education master degree', 'Karl Nehammer studied at Donau-Universität Krems.'],
      ['Verify the master degree of Karl Nehammer from Donau-Universität Krems.', 'Karl Nehammer master degree political communication Donau-Universität Krems', 'Confirmed.'],
      ['Search the Gini index of the European Union.', 'Karl Nehammer Gini index European Union', 'none'],
    ]);
    const out = propose('borrowed_step', here, 2, new CorpusIndex([here, other]));
    const adapted = out.filter((c) => shown(c).some((s) => s.includes('political communication')));
    expect(adapted.length).toBeGreaterThan(0);
    for (const s of adapted.flatMap(shown)) {
      expect(s).not.toMatch(/\p{Ll}(?:April|European)|April\p{L}|Donau-(?!Universität Krems)/u);
    }
  });
});

describe('substitution writes no repeated words', () => {
  const t = trajectory('abkhazia', 'What was the academic background of the first president of Abkhazia?', [
    ['Search Abkhazia history.', 'Abkhazia history', 'In 1994 the office of President was created in Abkhazia. Vladislav Ardzinba held it; Georgia and Russia disputed it. Sukhumi is the capital.'],
    ['Find the first president of Abkhazia.', 'first president of Abkhazia', 'Vladislav Ardzinba'],
  ]);

  it('off_target_argument never swaps in a name repeating a neighbouring word ("first president of President")', () => {
    const out = propose('off_target_argument', t, 1);
    expect(out.length).toBeGreaterThan(0);
    for (const s of out.flatMap(shown)) expect(s.toLowerCase()).not.toMatch(/\b(\p{L}{3,})\b(?:\W+\p{L}+){0,2}\W+\1\b/u);
  });

  it('replaceInCandidate is unchanged for a clean swap', () => {
    const c = replaceInCandidate(goldAt(t, 1), 'Abkhazia', 'Georgia');
    expect(c.plan).toBe('Find the first president of Georgia.');
  });
});

describe('substituted numbers keep their shape', () => {
  it('a year stays a four-digit year, a day a day (was "17年1月", "101年1月")', () => {
    const t = trajectory('fiji', '2025年1月斐济总理是谁？', [
      ['搜索斐济总理', '斐济总理 Fiji Prime Minister', 'Fiji has 17 provinces, 101 islands and 332 islets; the 2022 election was held on 14 December. Day 45 of the term.'],
      ['搜索2025年1月斐济总理是谁', '斐济总理 2025年1月 Fiji Prime Minister January 2025', 'Sitiveni Rabuka'],
      ['搜索1月17日斐济总理的活动', '斐济总理 1月17日 January 17 Fiji Prime Minister', 'none'],
    ]);
    const years = propose('off_target_argument', t, 1);
    expect(years.length).toBeGreaterThan(0);
    for (const s of years.flatMap(shown)) {
      for (const m of s.matchAll(/(\d+)年/g)) expect(m[1]).toMatch(/^\d{4}$/);
      for (const m of s.matchAll(/January (\d+)/g)) expect(m[1]).toMatch(/^\d{4}$/);
    }
    for (const s of propose('off_target_argument', t, 2).flatMap(shown)) {
      for (const m of s.matchAll(/(\d+)日|January (\d+)/g)) expect(Number(m[1] ?? m[2])).toBeLessThanOrEqual(31);
    }
  });
});
