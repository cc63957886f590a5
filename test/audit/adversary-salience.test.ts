/**
 * The adversary reads where the context grounds the words that set an option apart
 * (adversary-salience.ts): an outside reviewer found same-slot swaps' golds by "the entity the
 * goal names, the top of the last observation shows and the context repeats". And the filter,
 * which recomputes those columns for each set it shows, must see exactly what the audit sees.
 */
import { describe, expect, it } from 'vitest';
import { ADVERSARY_FEATURES, SALIENCE_COLUMN, adversaryFeatures, adversaryTable } from '../../generator/core/questions/audit/adversary-features.js';
import { SALIENCE_FEATURES, distinctiveSalience } from '../../generator/core/questions/audit/adversary-salience.js';
import { mcq } from './build.js';

const step = (text: string) => JSON.stringify({ planning: `Search for ${text}.`, execution: { name: 'web_search', args: { text } } });

function swapQuestion(order: number[] = [0, 1, 2, 3]) {
  const entities = ['Niger', 'Chad', 'Mali', 'Togo'];
  const choices = order.map((k) => step(`President of ${entities[k]} March 2025`));
  const history = [
    'Step 1: {"planning":"Find who leads Niger.","execution":{"name":"web_search","args":{"text":"Niger leader"}}}',
    // The gold's entity opens the last observation and recurs; Chad and Mali appear once, far down; Togo never.
    `Observation: Niger's president took office in 2023. Niger held talks in March. ${'The region saw several meetings and summits over the year. '.repeat(6)}Delegations from Chad and Mali attended.`,
  ].join('\n');
  const prompt = `Question: Who was the president of Niger in March 2025?\n${history}\nChoices of next step:\n${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\nThe correct next step should be (`;
  return mcq({ choices, gold: order.indexOf(0), prompt, question_start: 0, task: 'aptpace_dr_plan_mcq', kind: 'dr_plan_mcq' });
}

const column = (rows: number[][], name: (typeof ADVERSARY_FEATURES)[number]) => rows.map((r) => r[ADVERSARY_FEATURES.indexOf(name)]!);

describe('learned adversary: grounding of what sets an option apart', () => {
  it('reads the entity the goal names, the last observation opens with and the context repeats', () => {
    const rows = adversaryFeatures(swapQuestion());
    // Only the entity differs between the options: each has one distinctive word.
    expect(column(rows, 'distinct_words')).toEqual([Math.log1p(1), Math.log1p(1), Math.log1p(1), Math.log1p(1)]);
    expect(column(rows, 'distinct_in_goal')).toEqual([1, 0, 0, 0]);
    const last = column(rows, 'distinct_first_in_last_observation');
    expect(last[0]!).toBeLessThan(last[1]!);
    expect(last[1]!).toBeLessThan(last[2]!);
    expect(last[3]).toBe(1.5); // never shown: past the end
    const repeats = column(rows, 'distinct_repeats');
    expect(repeats[0]!).toBeGreaterThan(repeats[1]!);
    expect(repeats[1]).toBeCloseTo(Math.log1p(1), 12);
    expect(repeats[3]).toBe(0);
  });

  it('does not depend on the order the options are shown in', () => {
    const a = adversaryFeatures(swapQuestion());
    const order = [2, 0, 3, 1];
    const b = adversaryFeatures(swapQuestion(order));
    order.forEach((k, i) => expect(b[i]!.slice(SALIENCE_COLUMN)).toEqual(a[k]!.slice(SALIENCE_COLUMN)));
  });

  it('gives the filter, for any set it shows, the columns the audit computes for that set', () => {
    // Five candidates, two of which share a word: "distinctive" depends on which are shown together.
    const texts = ['search Niger president 2025', 'search Chad president 2025', 'search Chad capital 2025', 'search Mali president', 'search Togo capital'];
    const prompt = 'Question: Who led Niger in 2025?\nObservation: Niger and Chad met; the capital of Togo hosted it.\n';
    const whole = adversaryTable(mcq({ choices: texts, gold: 0, prompt, question_start: 0 }));
    for (const shown of [[0, 1, 2, 3], [0, 2, 3, 4], [0, 1, 4, 2]]) {
      const choices = shown.map((i) => texts[i]!);
      const audit = adversaryFeatures(mcq({ choices, gold: 0, prompt: `${prompt}${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\n`, question_start: 0 }));
      shown.forEach((i, at) => expect(distinctiveSalience(whole.salience, i, shown)).toEqual(audit[at]!.slice(SALIENCE_COLUMN, SALIENCE_COLUMN + SALIENCE_FEATURES.length)));
    }
    // Shown beside [1, 3], "chad" is shared by one of two rivals, not fewer than half: not distinctive for option 2.
    expect(distinctiveSalience(whole.salience, 2, [2, 1, 3])[0]).toBeCloseTo(Math.log1p(1), 12); // "capital" only
  });

  it('counts shared words the same way past 31 texts, where no bit mask holds them', () => {
    const texts = Array.from({ length: 34 }, (_, i) => `search w${i % 7} v${i % 3} president`);
    const prompt = 'Question: who?\nObservation: w1 and v2 and w5.\n';
    const table = adversaryTable(mcq({ choices: texts, gold: 0, prompt, question_start: 0 })).salience;
    expect(table.holders.length).toBe(0);
    const few = adversaryTable(mcq({ choices: texts.slice(0, 31), gold: 0, prompt, question_start: 0 })).salience;
    expect(few.holders.length).toBeGreaterThan(0);
    for (const shown of [[0, 1, 2, 3], [4, 11, 18, 25], [0, 7, 14, 30]]) for (const i of shown) expect(distinctiveSalience(table, i, shown)).toEqual(distinctiveSalience(few, i, shown));
  });

  it('marks the step a finish is offered at, and nothing for other steps', () => {
    const finish = JSON.stringify({ planning: 'Done.', execution: { name: 'task_complete', args: { answer: 'x' } } });
    const q = mcq({ choices: [finish, step('a b'), step('c d'), step('e f')], gold: 1, provenance: { traj_id: 't', source_path: 'p', source_line: null, step: 7, framework: 'x' } });
    expect(column(adversaryFeatures(q), 'finish_step')).toEqual([Math.log1p(7), 0, 0, 0]);
  });

  it('reads the whole last observation, however long: the entity its first result names opens it', () => {
    const filler = 'Other pages discuss the weather, the markets and several sports events in detail. '.repeat(40);
    const history = `Step 1: {"planning":"Search.","execution":{"name":"web_search","args":{"text":"leader"}}}\nObservation: Niger's president leads. ${filler} Chad and Mali were mentioned once.`;
    const choices = ['Niger', 'Chad', 'Mali', 'Togo'].map((e) => step(`President of ${e} March 2025`));
    const q = mcq({ choices, gold: 0, prompt: `Question: Who leads?\n${history}\n${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\n`, question_start: 0 });
    const first = column(adversaryFeatures(q), 'distinct_first_in_last_observation');
    // The observation runs past 3,000 characters: Niger opens it, where a tail of the text would not reach.
    expect(first[0]!).toBeLessThan(0.05);
    expect(first[1]!).toBeGreaterThan(0.9);
    expect(first[3]).toBe(1.5);
  });

  it('reads whether the context shows an option\'s distinctive words beside its other words, and in that order', () => {
    const choices = ['Paris Agreement', 'Kyoto Protocol', 'Marshall Plan', 'Warsaw Pact'].map((e) => step(`${e} number of parties originally adopted`));
    const history = [
      'Step 1: {"planning":"Find the agreement.","execution":{"name":"web_search","args":{"text":"Trump withdraw agreement"}}}',
      `Observation: The Paris Agreement number of parties was 195 when it was originally adopted in 2015. ${'Unrelated text about trade and tariffs follows here at length. '.repeat(12)}The Kyoto Protocol and the Marshall Plan were also in the news.`,
    ].join('\n');
    const q = mcq({ choices, gold: 0, prompt: `Question: How many parties did the agreement have?\n${history}\n${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\n`, question_start: 0 });
    const rows = adversaryFeatures(q);
    const beside = column(rows, 'distinct_cooccurrence');
    expect(beside[0]!).toBeGreaterThan(beside[1]!);
    expect(beside[1]!).toBe(beside[2]!);
    expect(beside[3]).toBe(0); // never shown
    const pairs = column(rows, 'distinct_pairs_in_history');
    expect(pairs[0]!).toBeGreaterThan(pairs[1]!);
    expect(column(rows, 'context_match_length')[0]!).toBeGreaterThan(column(rows, 'context_match_length')[1]!);
  });

  it('reads an option whose own words the solved examples before the question show', () => {
    const shot = 'Question: Who coached Benfica?\nStep 1: {"planning":"Search Benfica coach.","execution":{"name":"web_search","args":{"text":"Benfica coach"}}}\nThe correct next step is (A)\n\n';
    const choices = ['Niger', 'Chad', 'Benfica', 'Togo'].map((e) => step(`President of ${e} March 2025`));
    const body = `Question: Who leads Niger?\nObservation: Niger, Chad and Togo.\n${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\n`;
    const q = mcq({ choices, gold: 0, prompt: shot + body, question_start: shot.length });
    expect(column(adversaryFeatures(q), 'unique_in_examples')).toEqual([0, 0, 1, 0]);
  });
});
