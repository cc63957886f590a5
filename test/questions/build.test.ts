import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { lengthBucket } from '../../generator/core/questions/buckets.js';
import { type BuildResult, buildQuestions } from '../../generator/core/questions/build.js';
import { fixPatchOf } from '../../generator/core/questions/corpus.js';
import { QUESTION_KINDS } from '../../generator/core/questions/kinds.js';
import { changedFiles } from '../../generator/core/questions/diff.js';
import { normaliseChoice, normaliseCommand } from '../../generator/core/questions/normalise.js';
import { planOf } from '../../generator/core/questions/plans.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import type { McqQuestion, Question } from '../../generator/core/questions/types.js';
import { tempDir } from '../helpers/tmp.js';
import { byId, loadCanonical } from './fixtures.js';

const all = loadCanonical();
const LONG = 'fixture:acme__signalkit-88:0';
const letter = (i: number) => String.fromCharCode(65 + i);

// The APTBench kinds of issue 10 (7-option MCQ, tool calls, multi-select) have their own tests in new-kinds*.test.ts.
const kinds = QUESTION_KINDS.filter((k) => !['env_setup_error_mcq', 'issue_fix_tool_call_tc', 'dr_citation_ms'].includes(k));
let result: BuildResult;
beforeAll(async () => {
  result = await buildQuestions(all, { seed: 'test', kinds });
});

function stepOf(q: Question) {
  const t = byId(all, q.provenance.traj_id);
  return { t, step: q.provenance.step === null ? undefined : t.steps[q.provenance.step] };
}

describe('buildQuestions on the fixtures', () => {
  it('builds every kind the fixtures support, all schema-valid, and reads back', async () => {
    const kinds = new Set(result.questions.map((q) => q.kind));
    expect([...kinds].sort()).toEqual(
      ['bug_locate_mcq', 'dr_answer_tc', 'dr_plan_mcq', 'env_setup_action_tc', 'env_setup_plan_mcq', 'fix_patch_mcq', 'next_action_mcq', 'next_action_tc', 'plan_mcq', 'test_patch_mcq'],
    );
    const vfs = new MemoryVfs({ 'q.jsonl': result.questions.map((q) => `${JSON.stringify(q)}\n`).join('') });
    const back = await readQuestions(vfs, ['q.jsonl']);
    expect(back.findings).toEqual([]);
    expect(back.tally).toEqual({ read: result.questions.length, accepted: result.questions.length, rejected: 0 });
    expect(result.findings.map((f) => f.code)).toEqual(['build-unproven-excluded']);
  });

  it('skips what it cannot ask about with a counted reason', () => {
    expect(result.skipped['trajectory:unproven']).toBe(1);
    expect(result.skipped['plan_mcq:no-thoughts']).toBe(1);
    expect(result.skipped['plan_mcq:too-short']).toBe(1);
    expect(result.skipped['next_action_tc:too-short']).toBe(1);
    expect(result.skipped['fix_patch_mcq:no-patch']).toBe(1);
    // Two SWE fixtures have a test patch; every other one is counted.
    expect(result.skipped['test_patch_mcq:no-test-patch']).toBe(all.filter((t) => t.domain === 'swe' && t.outcome.success_source !== 'self_report').length - 2);
    const ids = new Set(result.questions.map((q) => q.provenance.traj_id));
    expect(ids.has('fixture:acme__textstats-20:0')).toBe(false);
    expect(ids.has('fixture:acme__appcfg-5:0')).toBe(false);
    expect(result.questions.some((q) => q.kind === 'plan_mcq' && q.provenance.traj_id === 'fixture:acme__weblib-9:0')).toBe(false);
  });

  it('anchors each gold in the trajectory it came from', () => {
    for (const q of result.questions) {
      const { t, step } = stepOf(q);
      expect(q.provenance.source_path).toBe(t.source.path);
      expect(q.provenance.source_line).toBe(t.source.line);
      expect(q.prompt.endsWith(q.answer_stem)).toBe(true);
      // APTBench's env-setup command prompt shows the execution plan instead of a goal.
      if (q.kind === 'env_setup_action_tc') expect(q.prompt).toContain(`Execution plan: ${t.extra?.execution_plan}`);
      else expect(q.prompt).toContain(t.task.goal.split('\n')[0]);
      if (q.format !== 'mcq') {
        if (q.kind === 'dr_answer_tc') expect(q.targets).toEqual([t.task.gold_answer]); // the fixtures carry no submission
        else expect(q.targets).toEqual([normaliseCommand(step!.action.text)]);
        continue;
      }
      const gold = q.choices[q.gold]!;
      if (q.kind === 'plan_mcq') expect(gold).toBe(planOf(step!));
      if (q.kind === 'next_action_mcq') expect(gold).toBe(step!.action.text);
      if (q.kind === 'fix_patch_mcq') expect(gold).toBe(fixPatchOf(t));
      if (q.kind === 'test_patch_mcq') expect(gold).toBe(t.task.gold_test_patch);
      if (q.kind === 'bug_locate_mcq') expect(changedFiles(fixPatchOf(t)!)).toContain(gold);
      if (q.kind === 'dr_plan_mcq') expect(JSON.parse(gold)).toEqual({ planning: step!.plan, execution: { name: step!.action.tool, args: step!.action.args } });
    }
  });

  it('renders MCQ options as (A) … lines and keeps distractors distinct from the gold and from each other', () => {
    const mcqs = result.questions.filter((q): q is McqQuestion => q.format === 'mcq');
    // Finish golds no run can pair with a premature-finish distractor, and drafts the adversarial filter still solves, are skipped.
    expect(mcqs.length).toBeGreaterThan(25);
    for (const q of mcqs) {
      expect(q.choices).toHaveLength(4);
      expect(new Set(q.choices.map(normaliseChoice)).size).toBe(4);
      const tail = q.prompt.slice(q.prompt.lastIndexOf('Choices'));
      q.choices.forEach((c, i) => expect(tail).toContain(`(${letter(i)}) ${c}\n`));
      expect(q.build.choice_sources?.[q.gold]).toBe('gold');
      expect(q.build.choice_sources?.filter((s) => s === 'gold')).toHaveLength(1);
    }
  });

  it('never offers the step right after the gold as a plan or action distractor', () => {
    for (const q of result.questions) {
      if (q.kind !== 'plan_mcq' && q.kind !== 'next_action_mcq') continue;
      const { t } = stepOf(q);
      const next = t.steps[q.provenance.step! + 1];
      if (!next) continue;
      const nextText = q.kind === 'plan_mcq' ? planOf(next) : next.action.text;
      const distractors = (q as McqQuestion).choices.filter((_, i) => i !== (q as McqQuestion).gold);
      expect(distractors.map(normaliseChoice)).not.toContain(normaliseChoice(nextText));
    }
  });

  it('balances gold letters within each kind and split (the scored split on its own)', () => {
    const byKind = new Map<string, number[]>();
    for (const q of result.questions) {
      if (q.format !== 'mcq') continue;
      const key = `${q.kind}/${q.split ?? 'test'}`;
      const counts = byKind.get(key) ?? [0, 0, 0, 0];
      counts[q.gold]!++;
      byKind.set(key, counts);
    }
    for (const [, counts] of byKind) expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  });

  it('produces 16K+ token contexts from the long trajectory under the default budget', () => {
    const long = result.questions.filter((q) => q.provenance.traj_id === LONG && q.length_bucket === '16-32K');
    expect(long.length).toBeGreaterThan(0);
    for (const q of long) {
      expect(q.prompt_tokens).toBeGreaterThan(16 * 1024);
      expect(q.prompt_tokens).toBeLessThanOrEqual(32768);
    }
  });

  it('records a bucket that matches the token count', () => {
    expect([lengthBucket(4096), lengthBucket(4097), lengthBucket(16384), lengthBucket(16385), lengthBucket(32768), lengthBucket(32769)]).toEqual(['<=4K', '4-16K', '4-16K', '16-32K', '16-32K', '>32K']);
    for (const q of result.questions) expect(q.length_bucket).toBe(lengthBucket(q.prompt_tokens));
  });

  it('takes few-shot examples only from the few-shot split and never from the question’s own trajectory', () => {
    const byQid = new Map(result.questions.map((q) => [q.id, q]));
    const fewshot = result.questions.filter((q) => q.split === 'fewshot');
    expect(fewshot.length).toBeGreaterThan(0);
    let withShots = 0;
    for (const q of result.questions) {
      const shots = q.build.fewshot_ids ?? [];
      if (shots.length) withShots++;
      for (const id of shots) {
        const shot = byQid.get(id)!;
        expect(shot.split).toBe('fewshot');
        expect(shot.kind).toBe(q.kind);
        expect(shot.provenance.traj_id).not.toBe(q.provenance.traj_id);
        // No example shows this question's answer, not even as one of its wrong options.
        const answer = normaliseChoice(q.format === 'mcq' ? q.choices[q.gold]! : q.targets[0]!);
        const shown = shot.format === 'mcq' ? shot.choices : shot.targets;
        expect(shown.map(normaliseChoice)).not.toContain(answer);
      }
    }
    expect(withShots).toBeGreaterThan(0);
    // Per domain: ~10% of the trajectories, at least one when the domain has three or more.
    const fewshotTrajectories = new Set(fewshot.map((q) => q.provenance.traj_id));
    expect([...fewshotTrajectories].map((id) => byId(all, id).domain)).toEqual(['swe']);
    for (const q of result.questions) if (fewshotTrajectories.has(q.provenance.traj_id)) expect(q.split).toBe('fewshot');
    // A solved shot shows its answer right after its stem, before the evaluated question.
    const q = result.questions.find((x) => x.kind === 'plan_mcq' && x.build.fewshot_ids?.length)! as McqQuestion;
    const shot = byQid.get(q.build.fewshot_ids![0]!) as McqQuestion;
    expect(q.prompt).toContain(`${q.answer_stem}${letter(shot.gold)})\n\n`);
  });

  it('is deterministic: same inputs and seed give identical output whatever the input order', async () => {
    const again = await buildQuestions([...all].reverse(), { seed: 'test', kinds });
    expect(JSON.stringify(again.questions)).toBe(JSON.stringify(result.questions));
    const other = await buildQuestions(all, { seed: 'other', kinds });
    expect(JSON.stringify(other.questions)).not.toBe(JSON.stringify(result.questions));
  });

  it('does not ask about a step that repeats an earlier one (its gold would be in the prompt)', async () => {
    const t = byId(all, 'fixture:acme__textstats-12:0');
    // Step 5 re-runs step 3's `cd /testbed && python reproduce.py`.
    expect(t.steps[5]!.action.text).toBe(t.steps[3]!.action.text);
    const r = await buildQuestions([t, ...loadCanonical('swe-basic')], { kinds: ['next_action_mcq'], maxPerTrajectory: 100, shots: 0, tokenizer: 'chars' });
    const steps = r.questions.filter((q) => q.provenance.traj_id === t.traj_id).map((q) => q.provenance.step);
    expect(steps).toContain(3);
    expect(steps).not.toContain(5);
    expect(r.skipped['next_action_mcq:repeated-step']).toBeGreaterThanOrEqual(1);
  });

  it('uses unproven trajectories only when asked', async () => {
    const r = await buildQuestions(loadCanonical('swe-unproven', 'swe-basic'), { includeUnproven: true, kinds: ['next_action_tc'], shots: 0 });
    expect(r.questions.some((q) => q.provenance.traj_id === 'fixture:acme__textstats-20:0')).toBe(true);
    expect(r.skipped['trajectory:unproven']).toBeUndefined();
  });

  it('reports an error when nothing is usable instead of crashing', async () => {
    const r = await buildQuestions(loadCanonical('swe-unproven'), {});
    expect(r.questions).toEqual([]);
    expect(r.findings.map((f) => f.code)).toEqual(['build-unproven-excluded', 'build-no-trajectories']);
  });
});

describe('fixtures and history styles', () => {
  it('every fixture is a valid canonical trajectory', async () => {
    const { validateTrajectory } = await import('../../generator/core/trajectories/schema.js');
    for (const t of all) expect(validateTrajectory(t), t.traj_id).toEqual([]);
  });

  it('shows earlier steps of plan questions as thought + action on request', async () => {
    const basic = loadCanonical('swe-basic');
    const plans = await buildQuestions(basic, { kinds: ['plan_mcq'], shots: 0, tokenizer: 'chars' });
    const actions = await buildQuestions(basic, { kinds: ['plan_mcq'], shots: 0, tokenizer: 'chars', planHistory: 'thought-action' });
    expect(actions.questions.map((q) => q.id)).toEqual(plans.questions.map((q) => q.id));
    const q = actions.questions.find((x) => x.provenance.traj_id === 'fixture:acme__textstats-12:0' && x.provenance.step! >= 2)!;
    const t = byId(basic, q.provenance.traj_id);
    expect(q.prompt).toContain(`Step 1:\nThought: ${t.steps[0]!.thought}\nAction: ${t.steps[0]!.action.text}\n`);
    const p = plans.questions.find((x) => x.id === q.id)!;
    expect(p.prompt).toContain(`Step 1: ${planOf(t.steps[0]!)}\n`);
    expect(p.prompt).not.toContain('Thought:');
  });
});

describe('token budgets and truncation', () => {
  it('keeps the goal, the tool set and the most recent steps, and marks the gap', async () => {
    const t = byId(all, LONG);
    const r = await buildQuestions([t], { kinds: ['next_action_tc'], budgetTokens: 3000, shots: 0, maxPerTrajectory: 1 });
    const q = r.questions[0]!;
    const position = q.provenance.step!;
    expect(q.prompt_tokens).toBeLessThanOrEqual(3000);
    expect(q.truncated).toBe(true);
    expect(q.prompt).toContain(t.task.goal);
    expect(q.prompt).toContain('Tool set:\n(1) {"name": "bash"');
    const omitted = Number(/\[\.\.\. (\d+) earlier steps omitted to fit the context budget \.\.\.\]/.exec(q.prompt)?.[1]);
    const shown = [...q.prompt.matchAll(/^Step (\d+):$/gm)].map((m) => Number(m[1]));
    // The kept steps are exactly the last ones before the predicted step, in order.
    expect(shown).toEqual(Array.from({ length: position - omitted }, (_, i) => omitted + i + 1));
    expect(shown.length).toBeGreaterThan(0);
    expect(q.prompt).toContain(`Action: ${t.steps[position - 1]!.action.raw ?? t.steps[position - 1]!.action.text}`);
    // One more step would not have fit.
    const wider = await buildQuestions([t], { kinds: ['next_action_tc'], budgetTokens: q.prompt_tokens + 400, shots: 0, maxPerTrajectory: 1 });
    expect(wider.questions[0]!.prompt_tokens).toBeLessThanOrEqual(q.prompt_tokens + 400);
  });

  it('counts tokens with the configured tokenizer (chars = ceil(length / 4); cl100k on a known text)', async () => {
    const r = await buildQuestions(loadCanonical('env-setup'), { tokenizer: 'chars', kinds: ['env_setup_action_tc'], shots: 0 });
    for (const q of r.questions) expect(q.prompt_tokens).toBe(Math.ceil(q.prompt.length / 4));
    const { loadTokenCounter } = await import('../../generator/core/questions/tokenizer.js');
    // Reference counts from OpenAI's tokenizer for cl100k_base: "hello world" is 2 tokens, "Hello, world!" 4.
    const cl = await loadTokenCounter('cl100k_base');
    expect([cl.count('hello world'), cl.count('Hello, world!')]).toEqual([2, 4]);
    // Special-token look-alikes in trajectories are plain text, not a crash.
    expect(cl.count('<|endoftext|>')).toBeGreaterThan(1);
  });
});

describe('templates', () => {
  const dir = tempDir('aptpace-templates-');

  it('renders plain text (no HTML escaping) and lets a user folder override a shipped template', async () => {
    const t = structuredClone(byId(all, 'fixture:acme__textstats-12:0'));
    t.task.goal = 'Fix <pr_description> handling & "quotes" in a && b';
    const shipped = await buildQuestions([t], { kinds: ['next_action_tc'], shots: 0, tokenizer: 'chars' });
    expect(shipped.questions[0]!.prompt).toContain('Fix <pr_description> handling & "quotes" in a && b');
    mkdirSync(path.join(dir, 'ok'), { recursive: true });
    writeFileSync(path.join(dir, 'ok', 'next_action_tc.hbs'), 'CUSTOM {{question.goal}}\n{{question.answer_stem}}\n');
    const custom = await buildQuestions([t], { kinds: ['next_action_tc'], shots: 0, tokenizer: 'chars', templatesDir: path.join(dir, 'ok') });
    expect(custom.questions[0]!.prompt).toBe(`CUSTOM ${t.task.goal}\nThe next command:\n\`\`\`bash\n`);
    expect(custom.questions[0]!.build.template).toMatch(/^user:next_action_tc@[0-9a-f]{8}/);
  });

  it('refuses a template whose prompt does not end with the answer stem', async () => {
    mkdirSync(path.join(dir, 'bad'), { recursive: true });
    writeFileSync(path.join(dir, 'bad', 'next_action_tc.hbs'), '{{question.goal}}\n');
    const r = await buildQuestions(loadCanonical('swe-basic'), { kinds: ['next_action_tc'], shots: 0, tokenizer: 'chars', templatesDir: path.join(dir, 'bad') });
    expect(r.questions).toEqual([]);
    expect(r.findings.map((f) => f.code)).toEqual(['build-template-error']);
  });
});

describe('model assistance (fake endpoint)', () => {
  const basic = loadCanonical('swe-basic');
  it('adds one model-made distractor and rewrites every plan choice in one voice', async () => {
    const prompts: string[] = [];
    let wrong = 0;
    const llm = {
      model: 'fake-base',
      complete: async (p: string) => {
        prompts.push(p);
        if (p.endsWith('Wrong next plan:')) return ` Open /testbed/unrelated_${wrong++}.py to inspect its contents.\nmore`;
        const step = /Step: (.*)\nRewritten:$/.exec(p)![1]!;
        return ` I need to ${step.charAt(0).toLowerCase()}${step.slice(1)}\nignored second line`;
      },
    };
    const r = await buildQuestions(basic, { kinds: ['plan_mcq'], shots: 0, tokenizer: 'chars', llm });
    expect(r.findings).toEqual([]);
    for (const q of r.questions as McqQuestion[]) {
      expect(q.choices.every((c) => c.startsWith('I need to '))).toBe(true);
      expect(q.build.llm_model).toBe('fake-base');
      expect(q.build.choice_sources!.filter((s) => s === 'model_perturbation')).toHaveLength(1);
      const made = q.choices[q.build.choice_sources!.indexOf('model_perturbation')]!;
      expect(made).toMatch(/^I need to open \/testbed\/unrelated_\d+\.py to inspect its contents\.$/);
    }
    // One perturbation and four rewrites per question.
    expect(prompts.length).toBe(r.questions.length * 5);
  });

  it('keeps the deterministic choices and says so when the model fails', async () => {
    const llm = { model: 'down', complete: async () => { throw new Error('connection refused'); } };
    const r = await buildQuestions(basic, { kinds: ['plan_mcq'], shots: 0, tokenizer: 'chars', llm });
    const plain = await buildQuestions(basic, { kinds: ['plan_mcq'], shots: 0, tokenizer: 'chars' });
    expect(r.questions.map((q) => (q as McqQuestion).choices)).toEqual(plain.questions.map((q) => (q as McqQuestion).choices));
    expect(new Set(r.findings.map((f) => f.code))).toEqual(new Set(['build-llm-failed']));
    expect(new Set(r.findings.map((f) => f.args.purpose))).toEqual(new Set(['plan rewriting', 'distractor generation']));
  });

  it('rejects a model distractor that repeats an option', async () => {
    const llm = { model: 'echo', complete: async (p: string) => (p.endsWith('Wrong next command:') ? /Correct next command: (.*)\n/.exec(p)![1]! : 'x') };
    const r = await buildQuestions(basic, { kinds: ['next_action_mcq'], shots: 0, tokenizer: 'chars', llm });
    expect(r.questions.length).toBeGreaterThan(0);
    for (const q of r.questions as McqQuestion[]) expect(q.build.choice_sources).not.toContain('model_perturbation');
    expect(r.findings.every((f) => f.code === 'build-llm-failed' && f.args.purpose === 'distractor generation')).toBe(true);
  });
});
