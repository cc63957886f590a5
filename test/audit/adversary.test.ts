import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADVERSARY_FEATURES, adversaryFeatures } from '../../generator/core/questions/audit/adversary-features.js';
import { assignFolds, crossFittedCredits, runAdversary, sourceGroup } from '../../generator/core/questions/audit/adversary.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { fitLogistic, standardiseWithin } from '../../generator/core/questions/audit/ranker.js';
import { ADVERSARY_LEARNERS } from '../../generator/core/questions/audit/learners.js';
import { argmaxCredit } from '../../generator/core/questions/audit/shortcuts/types.js';
import type { Finding } from '../../generator/core/kernel/findings.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { hasPython, python, repoRoot } from '../helpers/env.js';
import { plantedSet } from './planted.js';
import { completion, mcq } from './build.js';

const accuracy = (qs: McqQuestion[]) => {
  const fitted = crossFittedCredits(qs)!;
  return fitted.credits.reduce((s, c) => s + c, 0) / qs.length;
};

/** A planted cue no shortcut rule reads: in 40% of questions the gold is a premature finish, never a distractor. */
function finishCue(n: number): McqQuestion[] {
  return plantedSet('none', { n, recorded: true, seed: 'finish' }).map((q, i) => {
    if (i % 5 > 1) return q;
    const choices = [...q.choices];
    const finish = JSON.stringify({ planning: 'The answer is known.', execution: { name: 'task_complete', args: { answer: `topic${i}t1` } } });
    const prompt = q.prompt.replace(choices[q.gold]!, finish);
    choices[q.gold] = finish;
    return { ...q, prompt, choices };
  });
}

describe('learned adversary', () => {
  it('deals a planted set the same folds whatever other tests built before it', () => {
    const first = plantedSet('none', { n: 60, recorded: true });
    mcq({ choices: ['a', 'b'], gold: 0 });
    const again = plantedSet('none', { n: 60, recorded: true });
    // Equal questions, trajectory ids included, are what the fold dealing reads.
    expect(again).toEqual(first);
  });

  it('finds a planted length cue the way the longest-option rule would', () => {
    expect(accuracy(plantedSet('length', { n: 200, recorded: true }))).toBeGreaterThan(0.9);
  });

  it('finds a planted premature-finish cue that none of the shortcut rules reads', () => {
    const qs = finishCue(300);
    const acc = accuracy(qs);
    // 40% of questions are solved by the cue, the rest are guessed: about 0.4 + 0.6 × 0.25 = 55%.
    expect(acc).toBeGreaterThan(0.45);
    const { findings, report } = auditQuestions(qs);
    expect(findings.map((f) => f.code)).toContain('audit-adversary-above-chance');
    const combined = report.tasks[0]!.shortcuts.find((s) => s.name === 'combined')!;
    expect(combined.verdict).toBe('pass');
    expect(report.tasks[0]!.adversary!.cells.find((c) => c.language === 'en')!.verdict).toBe('fail');
  });

  it('sits near chance where no cue exists, and the gate passes', () => {
    const qs = plantedSet('none', { n: 400, recorded: true });
    expect(Math.abs(accuracy(qs) - 0.25)).toBeLessThan(0.06);
    const out: Finding[] = [];
    const result = runAdversary('t', qs, 10, out);
    expect(out).toEqual([]);
    expect(result!.cells.map((c) => c.verdict)).toEqual(['not gated', 'pass']);
  });

  it('judges each language on its own: a cue only in Chinese fails zh and not en', () => {
    const clean = plantedSet('none', { n: 200, recorded: true, seed: 'en' });
    const cued = finishCue(200).map((q) => ({ ...q, id: `zh-${q.id}`, language: 'zh' as const, provenance: { ...q.provenance, traj_id: `zh-${q.provenance.traj_id}` } }));
    const out: Finding[] = [];
    const result = runAdversary('t', [...clean, ...cued], 10, out);
    const verdicts = Object.fromEntries(result!.cells.map((c) => [c.language, c.verdict]));
    expect(verdicts).toMatchObject({ en: 'pass', zh: 'fail' });
    expect(out.map((f) => [f.code, f.args.language])).toEqual([['audit-adversary-above-chance', 'zh']]);
  });

  it('never fails a language with fewer than 30 questions, but warns when the adversary finds its gold', () => {
    // Fixed source ids: the folds are dealt by a hash of them, so the set is the same whatever ran before.
    const stable = (qs: McqQuestion[]) => qs.map((q, i) => ({ ...q, provenance: { ...q.provenance, traj_id: `small-${i}` } }));
    const out: Finding[] = [];
    const result = runAdversary('t', stable(plantedSet('length', { n: 25, recorded: true })), 10, out);
    const en = result!.cells.find((c) => c.language === 'en')!;
    expect(en.n).toBe(25);
    expect(en.excessPoints).toBeGreaterThan(10);
    expect(en.pValue).toBeLessThan(0.05);
    expect(en.verdict).toBe('warn');
    expect(result!.cells.find((c) => c.language === 'all')!.verdict).toBe('not gated');
    expect(out.map((f) => [f.code, f.severity, f.args.language, f.args.n])).toEqual([['audit-adversary-small', 'warning', 'en', 25]]);
    // Without a cue the small language is neither gated nor flagged.
    const quiet: Finding[] = [];
    const plain = runAdversary('t', stable(plantedSet('none', { n: 25, recorded: true })), 10, quiet);
    expect(plain!.cells.every((c) => c.verdict === 'not gated')).toBe(true);
    expect(quiet).toEqual([]);
  });

  it('keeps every run of one research question in one fold, and every fold holds questions', () => {
    // Four runs per research question (instance), each run its own trajectory.
    const qs = plantedSet('none', { n: 40, recorded: true }).map((q, i) => ({ ...q, provenance: { ...q.provenance, instance_id: `inst${Math.floor(i / 4)}` } }));
    expect(sourceGroup(qs[0]!)).toBe('inst0');
    const assigned = assignFolds(qs)!;
    expect(assigned.groups).toBe(10);
    expect(assigned.folds).toBe(5);
    for (let i = 0; i < qs.length; i += 4) expect(new Set(assigned.fold.slice(i, i + 4)).size).toBe(1);
    expect(new Set(assigned.fold).size).toBe(5);
    // Without an instance the trajectory is the group.
    expect(assignFolds(plantedSet('none', { n: 3, recorded: true }))!.groups).toBe(3);
  });

  it('needs two source groups to cross-fit', () => {
    const qs = plantedSet('none', { n: 10, recorded: true }).map((q) => ({ ...q, provenance: { ...q.provenance, traj_id: 'same' } }));
    expect(crossFittedCredits(qs)).toBeNull();
  });

  it('is deterministic: the same set gives the same credits', () => {
    const qs = finishCue(120);
    expect(crossFittedCredits(qs)).toEqual(crossFittedCredits(structuredClone(qs)));
  });

  it('warm-starts each logistic fit from the one before, and credits every question as fitting each fold from scratch would', () => {
    // Two planted cues (length, premature finish) in two sets of source groups, so the folds'
    // optima differ and a credit written to the wrong question or fold would show.
    const qs = [...plantedSet('length', { n: 160, recorded: true, seed: 'warm' }), ...finishCue(120)];
    for (const learner of ADVERSARY_LEARNERS.filter((l) => l.name === 'linear' || l.name === 'ranked')) {
      const starts: boolean[] = [];
      const watched = { ...learner, fit: (training: Parameters<typeof learner.fit>[0], maxIterations?: number, warm?: Parameters<typeof learner.fit>[2]) => {
        starts.push(warm?.weights !== undefined);
        return learner.fit(training, maxIterations, warm);
      } };
      const cold = { ...learner, fit: (training: Parameters<typeof learner.fit>[0]) => learner.fit(training) };
      const warmCredits = crossFittedCredits(qs, 5, watched)!;
      const coldCredits = crossFittedCredits(qs, 5, cold)!;
      // Only the first of the 15 fits (3 dealings × 5 folds) starts from zero.
      expect(starts).toEqual([false, ...Array.from({ length: 14 }, () => true)]);
      expect(warmCredits.credits.length).toBe(qs.length);
      for (const [i, c] of warmCredits.credits.entries()) expect(c, `${learner.name}, question ${i}`).toBeCloseTo(coldCredits.credits[i]!, 12);
      expect(warmCredits.credits.reduce((a, b) => a + b, 0) / qs.length).toBeGreaterThan(0.4);
    }
  });

  it('computes one row per option with every named feature, finite', () => {
    const q = finishCue(5)[0]!;
    const rows = adversaryFeatures(q);
    expect(rows).toHaveLength(q.choices.length);
    for (const row of rows) {
      expect(row).toHaveLength(ADVERSARY_FEATURES.length);
      for (const v of row) expect(Number.isFinite(v)).toBe(true);
    }
    const finish = ADVERSARY_FEATURES.indexOf('finish_marker');
    expect(rows.map((r) => r[finish])).toEqual(q.choices.map((_, j) => (j === q.gold ? 1 : 0)));
  });

  it('reads an entity swap, a plan that searches something else, and names the history never shows', () => {
    const step = (planning: string, text: string) => JSON.stringify({ planning, execution: { name: 'web_search', args: { text } } });
    const history = `Step 1: ${step('Find the year Marie Curie received the Nobel Prize in Physics.', 'Marie Curie Nobel Prize Physics year')}\nObservation: Marie Curie received the Nobel Prize in Physics in 1903 with Pierre Curie, and the Nobel Prize in Chemistry in 1911.`;
    const choices = [
      step('Find the year Marie Curie received the Nobel Prize in Chemistry.', 'Marie Curie Nobel Prize Chemistry year'),
      step('Find the year Marie Details received the Nobel Prize in Chemistry.', 'Marie Details Nobel Prize Chemistry year'),
      step('Find the year Marie Curie received the Nobel Prize in Chemistry.', 'President gold medals count'),
      step('Find the year Pierre Curie received the Nobel Prize in Physics.', 'Pierre Curie Nobel Prize Physics year'),
    ];
    const prompt = `Question: When did Marie Curie receive her second Nobel Prize?\n${history}\nChoices of next step:\n${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\nThe correct next step should be (`;
    const q = mcq({ choices, gold: 0, prompt, question_start: 0, task: 'aptpace_dr_plan_mcq', kind: 'dr_plan_mcq' });
    const rows = adversaryFeatures(q);
    const column = (name: string) => rows.map((r) => r[ADVERSARY_FEATURES.indexOf(name as (typeof ADVERSARY_FEATURES)[number])]!);
    // "Details" after "Marie" is a pair the history never shows: the swap's weakest word is far less likely than the gold's.
    expect(column('weakest_bigram')[1]!).toBeLessThan(column('weakest_bigram')[0]! - 0.5);
    expect(column('unseen_capitalised')[1]!).toBeGreaterThan(0);
    expect(column('unseen_capitalised')[0]).toBe(0);
    // The third plans the Curie question and searches medals: none of its search words are in its plan.
    expect(column('plan_arguments_agreement')[2]).toBe(0);
    expect(column('plan_arguments_agreement')[0]!).toBeGreaterThan(0.5);
    // The gold and the plan-mismatch share the plan: each is the other's nearest option.
    expect(column('max_similarity')[0]!).toBeGreaterThanOrEqual(column('similarity')[0]!);
  });

  it('reads what the goal and the earlier steps show of an option, how like an earlier step it reads, and a repeated call', () => {
    // An outside adversary found the shared golds as "the option most like an earlier step" and
    // "the option whose own words the goal shows": the audit's adversary reads both.
    const step = (planning: string, text: string) => JSON.stringify({ planning, execution: { name: 'web_search', args: { text } } });
    const first = step('Find when Marie Curie received her Nobel Prizes.', 'Marie Curie Nobel Prizes years');
    const history = `Step 1: ${first}\nObservation: Marie Curie received the Nobel Prize in Physics in 1903 and in Chemistry in 1911. Pierre Curie taught at the Sorbonne; Irène Joliot-Curie won in 1935.`;
    const choices = [
      step('Confirm the year of Marie Curie’s second Nobel Prize.', 'Marie Curie second Nobel Prize year'),
      first,
      step('Find where Irène Joliot-Curie taught.', 'Irène Joliot-Curie Sorbonne teaching'),
      step('Find the opening hours of the Louvre.', 'Louvre opening hours'),
    ];
    const prompt = `Question: When did Marie Curie receive her second Nobel Prize?\nExecuted trajectory:\n${history}\nChoices of next step:\n${choices.map((c, i) => `(${'ABCD'[i]}) ${c}`).join('\n')}\nThe correct next step should be (`;
    const q = mcq({ choices, gold: 0, prompt, question_start: 0, task: 'aptpace_dr_plan_mcq', kind: 'dr_plan_mcq' });
    const rows = adversaryFeatures(q);
    const column = (name: string) => rows.map((r) => r[ADVERSARY_FEATURES.indexOf(name as (typeof ADVERSARY_FEATURES)[number])]!);
    // The second option is step 1 again: the same call, and the same text.
    expect(column('repeats_earlier_call')).toEqual([0, 1, 0, 0]);
    expect(column('step_similarity')[1]).toBe(1);
    // The gold reuses most of step 1's words; the Louvre search none.
    expect(column('step_similarity')[0]!).toBeGreaterThan(column('step_similarity')[3]!);
    expect(column('steps_overlap')[0]!).toBeGreaterThan(column('steps_overlap')[3]! + 0.1);
    // The goal names "second" and the gold's other words; the Louvre and Irène searches share none of theirs.
    expect(column('goal_overlap')[0]!).toBeGreaterThanOrEqual(0.5);
    expect(column('goal_overlap')[0]!).toBeGreaterThan(column('goal_overlap')[2]!);
    expect(column('goal_overlap')[3]).toBe(0);
    expect(column('arguments_in_goal')[0]!).toBeGreaterThan(column('arguments_in_goal')[2]! + 0.3);
    expect(column('arguments_in_goal')[3]).toBe(0);
    // Irène's distinct words stand in the trajectory's observation, not in any earlier step; the Louvre's nowhere.
    expect(column('distinct_in_history')[2]!).toBeGreaterThan(0);
    expect(column('distinct_in_steps')[2]).toBe(0);
    expect(column('distinct_in_last_observation')[2]!).toBeGreaterThan(0);
    expect(column('distinct_in_history')[3]).toBe(0);
  });

  it('averages each question’s credit over the dealings of the source groups into folds', () => {
    const qs = finishCue(120);
    const dealings = [0, 1, 2].map((repeat) => assignFolds(qs, 5, repeat)!.fold);
    expect(dealings[1]).not.toEqual(dealings[0]);
    const rows = qs.map((q) => adversaryFeatures(q));
    const expected = new Array<number>(qs.length).fill(0);
    for (const fold of dealings) {
      for (let f = 0; f < 5; f++) {
        const score = ADVERSARY_LEARNERS[0].fit(qs.flatMap((q, i) => (fold[i] !== f ? [{ rows: rows[i]!, gold: q.gold }] : [])));
        qs.forEach((q, i) => {
          if (fold[i] === f) expected[i]! += argmaxCredit(score(rows[i]!), q.gold) / 3;
        });
      }
    }
    crossFittedCredits(qs)!.credits.forEach((c, i) => expect(c).toBeCloseTo(expected[i]!, 12));
  });

  it.skipIf(!hasPython)('fits the same logistic regression as scikit-learn on the same standardised features', () => {
    const qs = finishCue(150);
    const x = qs.flatMap((q) => standardiseWithin(adversaryFeatures(q)));
    const y = qs.flatMap((q) => q.choices.map((_, j) => (j === q.gold ? 1 : 0)));
    const ours = fitLogistic(x, y, 1);
    const script = path.join(repoRoot, 'test/audit/adversary_sklearn.py');
    const run = spawnSync(python, [script], { input: JSON.stringify({ x, y, c: 1 }), encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
    expect(run.status, run.stderr).toBe(0);
    const reference = JSON.parse(run.stdout) as { weights: number[]; intercept: number };
    expect(ours.weights).toHaveLength(reference.weights.length);
    ours.weights.forEach((w, j) => expect(w).toBeCloseTo(reference.weights[j]!, 4));
    expect(ours.intercept).toBeCloseTo(reference.intercept, 4);
  });
});

describe('short exact-match targets', () => {
  it('are caught in the question at any length, as whole tokens only', () => {
    const inPrompt = completion({ prompt: 'Question: classification of HD 133340?\nObservation: it is G8III, a giant.\nAnswer: ', answer_stem: 'Answer: ', targets: ['G8III'] });
    const insideWord = completion({ prompt: 'Question: which tools?\nAnswer: ', answer_stem: 'Answer: ', targets: ['ls'] });
    const toolCall = completion({ prompt: 'Observation: ls\nNext call: ', answer_stem: 'Next call: ', targets: ['ls'], metric: 'tool_call' });
    const { findings, report } = auditQuestions([inPrompt, insideWord, toolCall]);
    expect(findings.filter((f) => f.code === 'audit-short-target-in-prompt').map((f) => f.args.ids)).toEqual([[inPrompt.id]]);
    expect(report.tasks[0]!.shortTargetsInPrompt).toBe(1);
  });
});
