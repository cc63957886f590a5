import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { buildQuestions } from '../../generator/core/questions/build.js';
import { normaliseCommand } from '../../generator/core/questions/normalise.js';
import { validateQuestion } from '../../generator/core/questions/read-questions.js';
import type { CompletionQuestion, McqQuestion } from '../../generator/core/questions/types.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { hasSharedData, shared } from '../helpers/env.js';

const rows = (file: string) =>
  readFileSync(shared('aptbench-reference', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, any>);

/** An env-setup trajectory shaped like one released env_setup/action row: the executed commands, then the target. */
function envTrajectory(row: Record<string, any>, i: number): Trajectory {
  const commands = [...String(row.executed_cmds).split(';'), String(row.target_cmd)];
  return {
    schema_version: 'traj/1',
    traj_id: `aptbench-env:${row.uuid}`,
    domain: 'env_setup',
    source: { framework: 'aptbench', format: 'env_setup_action', path: 'env_setup_action.sample5.jsonl', line: i + 1, license: 'Apache-2.0' },
    task: { instance_id: row.uuid, goal: 'Set up the environment following the execution plan.', language: 'en' },
    environment: { tools: [{ name: 'bash' }] },
    agent: {},
    steps: commands.map((c, index) => ({ index, thought: null, plan: null, action: { kind: 'shell', tool: 'bash', args: { command: c }, text: c }, observation: null })),
    outcome: { success: true, success_source: 'benchmark_construction' },
    metrics: {},
    extra: { execution_plan: row.execution_plan },
  };
}

const SLOW = 60_000;

describe.skipIf(!hasSharedData)('against released APTBench questions', () => {
  it('renders an env-setup next-command question with the released prompt structure and target', async () => {
    const released = rows('env_setup_action.sample5.jsonl');
    const trajectories = released.map(envTrajectory);
    const built = await buildQuestions(trajectories, { kinds: ['env_setup_action_tc'], maxPerTrajectory: 1000, shots: 0 });
    released.forEach((row, i) => {
      const t = trajectories[i]!;
      // Released rows are prefixes of one another (SVBench's three rows): a row's last-step question
      // may be the near-duplicate of a longer row's mid-step one, which the build keeps once.
      const ending = `Execution plan: ${row.execution_plan}\nPrevious executed commands: ${row.executed_cmds}\nThe next command:\n\`\`\`bash\n`;
      const q = built.questions.find((x) => x.provenance.step === t.steps.length - 1 && x.prompt.endsWith(ending)) as CompletionQuestion;
      expect(q, row.uuid).toBeDefined();
      // APTBench's env_setup/action prompt: plan, the commands so far joined by ';', then an open bash fence.
      expect(q.prompt.endsWith(ending)).toBe(true);
      expect(q.targets).toEqual([row.target_cmd]);
      expect(q.stop).toContain('\n');
      expect(validateQuestion(q)).toEqual([]);
    });
  });

  it('writes deep-research choices in the released {"planning", "execution": {name, args}} form', async () => {
    const released = rows('deepresearch_plan_zh.sample5.jsonl');
    const shape = /^\{"planning": ".*", "execution": \{"name": "[A-Za-z_]+", "args": \{.*\}\}\}$/;
    const releasedChoices = released.flatMap((r) => String(r.choices).split('\n').filter((l) => /^\([A-Z]\) /.test(l)).map((l) => l.slice(4)));
    expect(releasedChoices.length).toBeGreaterThan(20);
    for (const c of releasedChoices) expect(c).toMatch(shape);

    const read = await readTrajectories(nodeVfs, [shared('trajectories', 'deep-research', 'aptbench_summ_ans_en.head120.jsonl')]);
    const built = await buildQuestions(read.trajectories, { kinds: ['dr_plan_mcq'], tokenizer: 'chars' });
    const mcqs = built.questions as McqQuestion[];
    expect(mcqs.length).toBeGreaterThan(60);
    for (const q of mcqs) {
      for (const c of q.choices) {
        expect(c).toMatch(shape);
        expect(Object.keys(JSON.parse(c))).toEqual(['planning', 'execution']);
      }
      expect(q.prompt).toContain('Choices of next step:\n(A) {"planning": ');
      expect(q.prompt.endsWith('The correct next step should be (')).toBe(true);
    }
  }, SLOW);

  it('asks the deep-research answer question of every released trajectory, targeting its released answer', async () => {
    const file = shared('trajectories', 'deep-research', 'aptbench_summ_ans_en.head120.jsonl');
    const released = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
    const read = await readTrajectories(nodeVfs, [file]);
    const built = await buildQuestions(read.trajectories, { kinds: ['dr_answer_tc'], tokenizer: 'chars' });
    expect(built.questions).toHaveLength(released.length);
    for (const q of built.questions as CompletionQuestion[]) {
      const row = released[q.provenance.source_line! - 1]!;
      // The short released `answer` first, the dataset's `query_answer` as a second reference.
      const flat = (x: unknown) => String(x).replace(/\s+/g, ' ').trim();
      expect(q.targets).toEqual([...new Set([flat(row.answer), flat(row.query_answer)])]);
      expect(q.prompt).toContain(`Question: ${row.query}\nSearching and browsing trajectory:\n`);
      expect(q.prompt.endsWith('The answer is [')).toBe(true);
      expect(q.metric).toBe('exact_match+rouge');
    }
  }, SLOW);
});

describe.skipIf(!hasSharedData)('real SWE trajectories', () => {
  it('builds valid, deterministic questions from SWE-agent, mini-swe-agent and OpenHands runs', async () => {
    const dirs = ['swe-agent', 'mini-swe-agent', 'openhands'].map((d) => shared('trajectories', d));
    const read = await readTrajectories(nodeVfs, dirs);
    expect(read.trajectories.length).toBeGreaterThanOrEqual(8);
    // Their success is unproven (no evaluation report), so the default build refuses them…
    const strict = await buildQuestions(read.trajectories, { tokenizer: 'chars' });
    expect(strict.findings.map((f) => f.code)).toContain('build-no-trajectories');
    // …and --include-unproven uses them.
    const options = { includeUnproven: true, tokenizer: 'chars' as const, seed: 'real' };
    const built = await buildQuestions(read.trajectories, options);
    const kinds = new Set(built.questions.map((q) => q.kind));
    for (const k of ['plan_mcq', 'next_action_tc', 'next_action_mcq', 'fix_patch_mcq']) expect(kinds.has(k as never), k).toBe(true);
    for (const q of built.questions) {
      expect(validateQuestion(q)).toEqual([]);
      if (q.format === 'completion' && q.kind === 'next_action_tc') {
        const t = read.trajectories.find((x) => x.traj_id === q.provenance.traj_id)!;
        expect(q.targets[0]).toBe(normaliseCommand(t.steps[q.provenance.step!]!.action.text));
      }
    }
    const again = await buildQuestions([...read.trajectories].reverse(), options);
    expect(JSON.stringify(again.questions)).toBe(JSON.stringify(built.questions));
  }, SLOW);
});
