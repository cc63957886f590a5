/**
 * The learned adversary's folds keep a research question whole across its runs. APTBench's
 * deep-research rows give every run its own `uuid` (the instance id) and record InfoDeepSeek's
 * question index in `traj_id`, shared by every agent's run of a question and by its Chinese
 * translation; SWE runs of one issue can be filed under two instance ids with the same goal.
 * Grouping by instance id alone put a question's sibling runs in its training folds (an outside
 * adversary grouped by research question read about 5 points less than one grouped by instance).
 * The few-shot split is drawn by the same groups, so no test question has a sibling run among the
 * few-shot examples the harness shows.
 */
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { assignFolds, sourceGroup } from '../../generator/core/questions/audit/adversary.js';
import { GENERIC_GOAL_RUNS, sourceGroups } from '../../generator/core/questions/build-keys.js';
import { buildQuestions } from '../../generator/core/questions/build.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { traj } from './validity-fixtures.js';

/** An APTBench deep-research row: one run of InfoDeepSeek question `index` by `agent`. */
function row(uuid: string, index: number, agent: string, query: string, topic: string): string {
  const steps = [
    { planning: `Search for ${topic}.`, execution: { name: 'web_search', args: { text: `${topic} facts` } }, observation: `title: ${topic}\nbody: ${topic} was founded in 1901.\nurl: https://example.org/${uuid}` },
    { planning: 'Open the page to confirm the year.', execution: { name: 'browse_website', args: { url: `https://example.org/${uuid}`, question: 'When was it founded?' } }, observation: 'It was founded in 1901.' },
    { planning: 'I have the answer.', execution: { name: 'task_complete', args: {} } },
  ];
  return JSON.stringify({ uuid, traj_id: index, source: `ids_${agent}`, query, query_answer: '1901', question_instruct: 'Write the answer', traj_len: steps.length, trajectory: JSON.stringify(steps), answer: '1901' });
}

async function read(rows: string[]): Promise<Trajectory[]> {
  const read = await readTrajectories(new MemoryVfs({ '/dr.jsonl': `${rows.join('\n')}\n` }), ['/dr.jsonl']);
  expect(read.findings.filter((f) => f.severity === 'error')).toEqual([]);
  return read.trajectories;
}

describe('source groups: a research question across runs, agents and languages', () => {
  it('joins runs of one InfoDeepSeek question (each under its own uuid) and its translation, and nothing else', async () => {
    const trajectories = await read([
      row('u-a1', 46, 'deepseek_ddg', 'Was the sculptor Ada Lin elected to the academy?', 'Ada Lin'),
      row('u-a2', 46, 'deepseek_lang_ddg', 'Was the sculptor Ada Lin elected to the academy?', 'Ada Lin'),
      row('u-a3', 46, 'gemini-2.5-flash_google', '雕塑家林艾达是否当选过学院院士？', 'Ada Lin'),
      row('u-b1', 47, 'deepseek_ddg', 'When was the Tallinn harbour opened?', 'Tallinn harbour'),
    ]);
    expect(trajectories.map((t) => t.task.instance_id)).toEqual(['u-a1', 'u-a2', 'u-a3', 'u-b1']);
    const groups = sourceGroups(trajectories);
    expect(trajectories.map((t) => groups.get(t))).toEqual(['u-a1', 'u-a1', 'u-a1', 'u-b1']);
    // Adding another question's runs renames no group.
    const more = [...(await read([row('u-0', 12, 'deepseek_ddg', 'Who built the Narva bridge?', 'Narva bridge')])), ...trajectories];
    const again = sourceGroups(more);
    expect(trajectories.map((t) => again.get(t))).toEqual(['u-a1', 'u-a1', 'u-a1', 'u-b1']);
  });

  it('joins one issue filed under two instance ids (same goal up to case and spacing); the question index counts for InfoDeepSeek runs only', () => {
    const a = traj('acme__w-1', 'swe', 'Fix the crash in parse()  when input is empty.', [{ tool: 'bash', args: { command: 'ls' } }]);
    const b = traj('gym__acme-w-1', 'swe', 'fix the crash in parse() when input is empty', [{ tool: 'bash', args: { command: 'ls' } }]);
    const c = traj('acme__w-2', 'swe', 'Add a --verbose flag.', [{ tool: 'bash', args: { command: 'ls' } }]);
    const other = { ...traj('run-9', 'deep_research', 'Who wrote it?', [{ tool: 'web_search', args: { text: 'x' } }]), extra: { source_traj_id: 46 } };
    const sibling = { ...traj('run-10', 'deep_research', 'Where is it?', [{ tool: 'web_search', args: { text: 'y' } }]), extra: { source_traj_id: 46 } };
    const groups = sourceGroups([a, b, c, other, sibling]);
    expect([a, b, c, other, sibling].map((t) => groups.get(t))).toEqual(['acme__w-1', 'acme__w-1', 'acme__w-2', 'run-9', 'run-10']);
  });

  it('a goal many instance ids share is a generic instruction and joins nothing', () => {
    const runs = Array.from({ length: GENERIC_GOAL_RUNS + 1 }, (_, i) => traj(`env-${i}`, 'env_setup', 'Set up the environment.', [{ tool: 'bash', args: { command: 'pip install .' } }]));
    const groups = sourceGroups(runs);
    expect(new Set(runs.map((t) => groups.get(t))).size).toBe(runs.length);
    const few = sourceGroups(runs.slice(0, GENERIC_GOAL_RUNS));
    expect(new Set(runs.slice(0, GENERIC_GOAL_RUNS).map((t) => few.get(t)))).toEqual(new Set(['env-0']));
  });

  it('the build records the group where it is not the instance id, and the audit keeps each group in one fold', async () => {
    const topics = ['Ada Lin', 'Tallinn harbour', 'Narva bridge', 'Tartu observatory', 'Pärnu beach', 'Viljandi castle', 'Haapsalu railway', 'Rakvere theatre'];
    const rows = topics.flatMap((topic, q) => [
      row(`u-${q}-1`, 100 + q, 'deepseek_ddg', `What year was ${topic} founded?`, topic),
      row(`u-${q}-2`, 100 + q, 'deepseek_lang_ddg', `What year was ${topic} founded?`, topic),
      row(`u-${q}-3`, 100 + q, 'gemini-2.5-flash_google', `${topic}是哪一年建立的？`, topic),
    ]);
    const built = await buildQuestions(await read(rows), { seed: 'groups', shots: 0 });
    // Every kind's record carries the group (the fold code reads provenance only).
    const questions = built.questions as unknown as McqQuestion[];
    expect(new Set(questions.map((q) => q.provenance.instance_id)).size).toBe(rows.length);
    for (const q of questions) {
      const [, index] = /^u-(\d+)-(\d)$/.exec(q.provenance.instance_id!)!;
      expect(sourceGroup(q)).toBe(`u-${index}-1`);
      expect(q.provenance.source_group === undefined).toBe(q.provenance.instance_id === `u-${index}-1`);
    }
    const folds = assignFolds(questions, 5)!;
    const foldOf = new Map<string, Set<number>>();
    questions.forEach((q, i) => foldOf.set(sourceGroup(q), (foldOf.get(sourceGroup(q)) ?? new Set()).add(folds.fold[i]!)));
    expect([...foldOf.values()].every((f) => f.size === 1)).toBe(true);
    expect(folds.groups).toBe(new Set(questions.map(sourceGroup)).size);
  });

  it('the few-shot split takes whole groups: no run of a few-shot example’s question is a test question', async () => {
    // 30 questions, three runs each: the split's 10% is nine runs, three whole groups.
    const rows = Array.from({ length: 30 }, (_, q) => `Landmark ${q}`).flatMap((topic, q) => [
      row(`f-${q}-1`, 300 + q, 'deepseek_ddg', `What year was ${topic} founded?`, topic),
      row(`f-${q}-2`, 300 + q, 'deepseek_lang_ddg', `What year was ${topic} founded?`, topic),
      row(`f-${q}-3`, 300 + q, 'gemini-2.5-flash_google', `${topic}是哪一年建立的？`, topic),
    ]);
    const trajectories = await read(rows);
    for (const seed of ['s0', 's1', 's2', 's3']) {
      const built = await buildQuestions(trajectories, { seed, shots: 0, kinds: ['dr_answer_tc'] });
      const splits = new Map<string, Set<string>>();
      for (const q of built.questions) splits.set(sourceGroup(q as McqQuestion), (splits.get(sourceGroup(q as McqQuestion)) ?? new Set<string>()).add(q.split ?? 'test'));
      expect([...splits.values()].filter((s) => s.size > 1), seed).toEqual([]);
      expect([...splits.values()].filter((s) => s.has('fewshot')).length, seed).toBeGreaterThan(0);
    }
  });
});
