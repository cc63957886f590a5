/**
 * Which solved examples a question shows (build-shots.ts): never one that shows a name-like word
 * only one of the question's options has (an entity of the example's task swapped into a
 * distractor is then told from the gold by that alone), and a gold letter the shots already
 * have only when no other letter can be had.
 */
import { describe, expect, it } from 'vitest';
import { chooseShots } from '../../generator/core/questions/build-shots.js';
import type { QuestionDraft } from '../../generator/core/questions/types/module.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { traj } from './validity-fixtures.js';

function draft(goal: string, choices: string[], gold: number): QuestionDraft {
  return {
    kind: 'dr_plan_mcq',
    step: 1,
    fields: { goal },
    history: [],
    answerStem: 'The next step is (',
    answerSuffix: ')',
    mcq: { choices, gold, sources: choices.map((_, i) => (i === gold ? 'gold' : 'entity_swap')) },
  };
}

const run = (id: string, goal: string) => traj(id, 'deep_research', goal, [{ tool: 'web_search', args: { text: goal } }]);
const entry = (id: string, goal: string, choices: string[], gold: number): { t: Trajectory; draft: QuestionDraft } => ({ t: run(id, goal), draft: draft(goal, choices, gold) });

describe('few-shot examples a question shows', () => {
  const own = run('own', 'Who led Niger in March 2025?');
  const question = draft('Who led Niger in March 2025?', ['search President of Niger March 2025', 'search President of Benfica March 2025', 'search President of Chad March 2025', 'search President of Togo March 2025'], 0);

  it('skips an example that shows a name only one option has, in either direction', () => {
    const pool = [
      entry('a', 'Who coached Benfica in 2019?', ['search Benfica coach 2019', 'search Porto coach 2019', 'search Braga coach 2019', 'search Sporting coach 2019'], 1),
      entry('b', 'Where is Niger River source?', ['search Niger River source', 'search Volta River source', 'search Congo River source', 'search Nile River source'], 2),
      entry('c', 'When did the treaty end?', ['search treaty end date', 'search treaty start date', 'search treaty signatories', 'search treaty text'], 3),
    ];
    // "Benfica" is only in option B and "Niger" only in the gold: both examples would single an option out.
    expect(chooseShots(pool, own, question, 3).map((e) => e.t.task.instance_id)).toEqual(['c']);
  });

  it('names every option shares, and lower-case words one option has, do not block an example', () => {
    const pool = [entry('d', 'Who was President of Peru in March 2020?', ['search President of Peru March 2020', 'search President of Chile March 2020', 'search Peru capital', 'search Peru flag'], 0)];
    // "March", "President" and "2025" are in every option; "2020"/"Peru" are in none of them.
    expect(chooseShots(pool, own, question, 1).map((e) => e.t.task.instance_id)).toEqual(['d']);
  });

  it('takes a gold letter the shots have not shown before repeating one, even from a run already shown', () => {
    const choices = (n: number) => [`search topic ${n} alpha`, `search topic ${n} beta`, `search topic ${n} gamma`, `search topic ${n} delta`];
    const pool = [
      entry('e', 'Question e?', choices(1), 1),
      entry('f', 'Question f?', choices(2), 1),
      { t: run('e', 'Question e?'), draft: draft('Question e?', choices(3), 2) },
      entry('g', 'Question g?', choices(4), 1),
    ];
    const shots = chooseShots(pool, own, question, 2);
    expect(shots.map((e) => e.draft.mcq!.gold)).toEqual([1, 2]);
    // Only when no other letter is left does a repeated one come in, from a run not shown yet first.
    expect(chooseShots(pool, own, question, 3).map((e) => [e.t.task.instance_id, e.draft.mcq!.gold])).toEqual([['e', 1], ['e', 2], ['f', 1]]);
  });
});
