/**
 * The cue sources a learned options-only adversary exploited in real builds, each pinned by a
 * fixture: a finish offered only as the gold, entity swaps inside words and on sentence-opening
 * verbs, and the adversarial filter that re-chooses distractors against the discriminator.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { crossFittedCredits } from '../../generator/core/questions/audit/adversary.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { DEFAULT_KINDS } from '../../generator/core/questions/kinds.js';
import { type BuildResult, buildQuestions } from '../../generator/core/questions/build.js';
import { replaceInCandidate, replaceWhole } from '../../generator/core/questions/operators/edit.js';
import { entitiesIn } from '../../generator/core/questions/operators/off-target-argument.js';
import type { StepCandidate } from '../../generator/core/questions/operators/types.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { loadCanonical } from './fixtures.js';
import { omittedMarkersFor } from '../../generator/core/questions/stems-zh.js';
import { intentOf, isIntent } from '../../generator/core/questions/plans.js';
import { sameTask } from '../../generator/core/questions/corpus.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { hasSharedData, shared } from '../helpers/env.js';

const FINISH = /task_complete|"submit"|\bsubmit\b/;

describe('entity substitution', () => {
  it('replaces whole tokens only, never inside a word', () => {
    expect(replaceWhole('ByteDance hired a PhD from Dance Co.', 'Dance', 'Balfour')).toBe('ByteDance hired a PhD from Balfour Co.');
    expect(replaceWhole('PhD thesis', 'Ph', 'Mwinyi')).toBe('PhD thesis');
    expect(replaceWhole('open src/a.py and src/a.pyc', 'src/a.py', 'lib/b.py')).toBe('open lib/b.py and src/a.pyc');
    expect(replaceWhole('诺曼·雷诺兹的作品', '雷诺兹', '卡特')).toBe('诺曼·卡特的作品');
  });

  it('a candidate keeps words that merely contain the entity', () => {
    const c: StepCandidate = {
      plan: 'Search ByteDance and Dance',
      planGiven: true,
      action: { kind: 'tool_call', tool: 'web_search', args: { text: 'ByteDance Dance founder' }, text: 'web_search ByteDance Dance founder' },
    };
    const out = replaceInCandidate(c, 'Dance', 'Balfour');
    expect(out.plan).toBe('Search ByteDance and Balfour');
    expect(out.action.args).toEqual({ text: 'ByteDance Balfour founder' });
    expect(out.action.text).toBe('web_search ByteDance Balfour founder');
  });

  it('a capitalised word opening a sentence is not a name to swap', () => {
    const names = entitiesIn('Identify the current president of Niger. Determine when Maria Callas sang.').filter((e) => e.type === 'name').map((e) => e.text);
    expect(names).toEqual(['Niger', 'Maria Callas']);
  });
});

describe.skipIf(!hasSharedData)('premature finish on the real deep-research runs', () => {
  let result: BuildResult;
  beforeAll(async () => {
    const read = await readTrajectories(nodeVfs, [shared('trajectories')]);
    result = await buildQuestions(read.trajectories, { seed: '0', kinds: ['dr_plan_mcq'], includeUnproven: true });
  }, 120_000);

  it('is offered as a distractor at least as often as it is the gold (it was the gold in 100 of 120 questions offering it)', () => {
    let gold = 0;
    let distractor = 0;
    for (const q of result.questions as McqQuestion[]) {
      q.choices.forEach((c, i) => {
        if (!FINISH.test(c)) return;
        if (i === q.gold) gold++;
        else distractor++;
      });
    }
    expect(gold).toBeGreaterThan(0);
    expect(distractor).toBeGreaterThanOrEqual(gold);
  });

  it('the shots a prompt shows answer with different letters (97 of 101 English prompts once showed B, B, B)', () => {
    const byId = new Map((result.questions as McqQuestion[]).map((q) => [q.id, q]));
    const prompts = (result.questions as McqQuestion[]).filter((q) => q.split !== 'fewshot' && (q.build.fewshot_ids?.length ?? 0) >= 2);
    // dr_plan_mcq keeps about 80 of its anchors here: the rest are dropped where the gold stays the most fluent option or the filter still finds it.
    expect(prompts.length).toBeGreaterThan(60);
    // Shots are drawn in one seeded order and the few-shot split is letter-balanced in that order.
    const distinct = prompts.filter((q) => new Set(q.build.fewshot_ids!.map((id) => byId.get(id)!.gold)).size === q.build.fewshot_ids!.length).length;
    expect(distinct / prompts.length).toBeGreaterThan(0.9);
  });
});

describe('a finish among the options', () => {
  const RIVERS: Array<[string, number]> = [['Wend', 96], ['Lune', 105], ['Tarn', 87], ['Ouse', 208], ['Eden', 145], ['Aller', 412]];
  /** A run in `town` that checks `checked` rivers one by one (the longest, Aller, last), then finishes. */
  function riverRun(town: string, checked: number): Trajectory {
    const base = loadCanonical('deep-research').find((t) => t.traj_id === 'dr:river-2:0')!;
    const lengths = RIVERS.slice(RIVERS.length - checked);
    const search = (index: number, plan: string, text: string, observation: string) => ({
      ...base.steps[1]!,
      index,
      plan,
      action: { kind: 'tool_call' as const, tool: 'web_search', args: { text }, text: `web_search ${JSON.stringify({ text })}`, raw: null },
      observation,
    });
    const steps = [
      search(0, `Find which rivers flow through ${town}.`, `rivers flowing through ${town} town`, `title: ${town} - Geography\nbody: ${town} lies on the ${lengths.map(([r]) => r).join(', ')}. The Kent, Nidd and Wharfe pass near it but not through it.`),
      ...lengths.map(([river, km], j) => search(j + 1, `Look up the length of the ${river}.`, `${river} river length km`, `title: ${river} (river)\nbody: The ${river} is ${km} km long.`)),
      // A finish without arguments, as the deep-research runs write it: its distractors re-check
      // the last lookup with other rivers the first page named.
      { ...base.steps[3]!, index: checked + 1, plan: 'Finish: the Aller is the longest river.', action: { ...base.steps[3]!.action, args: {}, text: 'task_complete {}' } },
    ];
    const goal = `What is the length in kilometres of the longest river that flows through the town of ${town}?`;
    return { ...base, traj_id: `dr:rivers-${town}:0`, task: { ...base.task, instance_id: `rivers-${town}`, goal }, steps };
  }

  it('is offered as a premature distractor by K − 1 questions that show as many steps as the finish gold, from any run', async () => {
    // A short run finishes at step 5; longer runs reach step 5 before their answer is found, and
    // there, like the finish gold's re-checks, their options vary the river of a shown lookup.
    const short = riverRun('Brennick', 4);
    const long = ['Calder', 'Dunmore', 'Esker', 'Fenwick'].map((town) => riverRun(town, 6));
    // Under every seed (which questions pair is seeded).
    for (const seed of ['0', '1', '2', '3', '4']) {
      const built = await buildQuestions([short, ...long], { seed, kinds: ['dr_plan_mcq'], adversarialFilter: false, maxPerTrajectory: 8 });
      const questions = built.questions as McqQuestion[];
      const finishGolds = questions.filter((q) => FINISH.test(q.choices[q.gold]!));
      const premature = questions.filter((q) => !FINISH.test(q.choices[q.gold]!) && q.choices.some((c) => FINISH.test(c)));
      // Paired within its own run, a finish offered early told it apart by how much of the run the prompt showed.
      expect(finishGolds.map((q) => q.provenance.step), seed).toEqual([5]);
      expect(premature.map((q) => q.provenance.step), seed).toEqual([5, 5, 5]);
      expect(new Set(premature.map((q) => q.provenance.traj_id)).size, seed).toBe(3);
      // The long runs' own finishes (step 7) have no partner showing seven steps: they are dropped, as counted.
      expect(built.skipped['dr_plan_mcq:finish-unbalanced'], seed).toBe(4);
    }
  });
});

describe('adversarial filter', () => {
  it('leaves the learned adversary nearer chance than building without it, deterministically', async () => {
    const trajectories = loadCanonical();
    const on = await buildQuestions(trajectories, { seed: 'af', kinds: ['plan_mcq', 'next_action_mcq', 'dr_plan_mcq'] });
    const again = await buildQuestions(trajectories, { seed: 'af', kinds: ['plan_mcq', 'next_action_mcq', 'dr_plan_mcq'] });
    const off = await buildQuestions(trajectories, { seed: 'af', kinds: ['plan_mcq', 'next_action_mcq', 'dr_plan_mcq'], adversarialFilter: false });
    expect(JSON.stringify(on.questions)).toBe(JSON.stringify(again.questions));
    const accuracy = (qs: McqQuestion[]) => {
      const c = crossFittedCredits(qs)!;
      return c.credits.reduce((s, x) => s + x, 0) / qs.length;
    };
    const mcqs = (r: BuildResult) => r.questions.filter((q): q is McqQuestion => q.format === 'mcq');
    expect(accuracy(mcqs(on))).toBeLessThanOrEqual(accuracy(mcqs(off)));
    expect(on.questions.every((q) => !('alternatives' in ((q as McqQuestion).build ?? {})))).toBe(true);
  });
});

describe('citation multi-select', () => {
  it('is built only when named: the default kinds leave it out', () => {
    expect(DEFAULT_KINDS).not.toContain('dr_citation_ms');
    expect(DEFAULT_KINDS).toContain('dr_plan_mcq');
  });

  it.skipIf(!hasSharedData)('never states the answer it asks to cite, so no string rule solves it on the real runs', async () => {
    const read = await readTrajectories(nodeVfs, [shared('trajectories')]);
    const built = await buildQuestions(read.trajectories, { seed: '0', kinds: ['dr_citation_ms'], includeUnproven: true });
    for (const q of built.questions) expect(q.prompt).not.toMatch(/^(?:Final answer|最终答案)\s*[:：]/m);
    const { findings, report } = auditQuestions(built.questions);
    const task = report.tasks.find((t) => t.task === 'aptpace_dr_citation_ms')!;
    expect(task.multiSelect!.questions).toBeGreaterThanOrEqual(30);
    // Stating the answer let "mark what contains it" match 93% of gold sets.
    expect(task.multiSelect!.rules.answer_mention.setMatch).toBe(0);
    for (const [rule, score] of Object.entries(task.multiSelect!.rules)) expect(score.setMatch, rule).toBeLessThanOrEqual(0.5);
    expect(findings.filter((f) => f.code === 'audit-multi-select-rule')).toEqual([]);
    expect(task.verdict).not.toBe('fail');
  }, 120_000);
});

describe('cut-observation marker', () => {
  it('is Chinese in a Chinese prompt and English otherwise', () => {
    const text = 'head\n[... 1234 characters omitted ...]\ntail';
    expect(omittedMarkersFor(text, 'zh')).toBe('head\n[…… 省略 1234 个字符 ……]\ntail');
    expect(omittedMarkersFor(text, 'en')).toBe(text);
  });

  it.skipIf(!hasSharedData)('no Chinese prompt built from the real runs carries the English marker, and the scored segment still starts at its header', async () => {
    const read = await readTrajectories(nodeVfs, [shared('trajectories')]);
    const built = await buildQuestions(read.trajectories, { seed: '0', kinds: ['dr_answer_tc'], includeUnproven: true, observationChars: 600 });
    const zh = built.questions.filter((q) => q.language === 'zh');
    expect(zh.some((q) => q.prompt.includes('省略'))).toBe(true);
    for (const q of zh) {
      expect(q.prompt).not.toContain('characters omitted');
      expect(q.prompt.slice(q.question_start ?? 0)).toMatch(/^\S/);
    }
  }, 120_000);
});

describe('plan golds', () => {
  it('an intent-worded sentence that names nothing to do is not an intent', () => {
    expect(isIntent('Let me try again.')).toBe(false);
    expect(isIntent('Let me summarize the findings so far.')).toBe(false);
    expect(isIntent('让我总结一下目前的发现。')).toBe(false);
    expect(intentOf({ thought: 'The search failed. Let me try again.' })).toBeNull();
    expect(isIntent('Let me search for the 1775 census of China.')).toBe(true);
    expect(isIntent('I will open src/app.py to read the handler.')).toBe(true);
  });
});

describe('valid alternatives', () => {
  it('a run of the same issue under another instance id is the same task: none of its steps is borrowed', () => {
    const [a] = loadCanonical();
    const b = structuredClone(a!);
    b.traj_id = `${a!.traj_id}-rerun`;
    b.task.instance_id = `${a!.task.instance_id}-v2`;
    b.task.goal = `  ${a!.task.goal.toUpperCase().replace(/\s+/g, '\n')}  `;
    expect(sameTask(a!, b)).toBe(true);
    const c = structuredClone(b);
    c.task.goal = 'A different question altogether.';
    expect(sameTask(a!, c)).toBe(false);
  });
});
