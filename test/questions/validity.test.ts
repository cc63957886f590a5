import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { buildQuestions } from '../../generator/core/questions/build.js';
import { CorpusIndex } from '../../generator/core/questions/corpus.js';
import { normaliseChoice } from '../../generator/core/questions/normalise.js';
import { filterApproved, reviewCoverage } from '../../generator/core/questions/review/status.js';
import { STEP_OPERATORS } from '../../generator/core/questions/operators/index.js';
import { candidateOf, intentOf } from '../../generator/core/questions/plans.js';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { prefixRows, researchCorpus, traj } from './validity-fixtures.js';

const mcqs = (qs: unknown[]) => qs.filter((q): q is McqQuestion => (q as McqQuestion).format === 'mcq');
/** The question segment before its options: what copy detection reads. */
const shownBefore = (q: McqQuestion) => {
  const seg = q.prompt.slice(q.question_start ?? 0);
  return normaliseChoice(seg.slice(0, seg.lastIndexOf('\n(A) ')));
};

const sweThoughts = traj('swe-intent', 'swe', 'Dividing by zero in calc.divide crashes instead of raising ValueError.', [
  { thought: "Let's list the repository to find the calculator module.", tool: 'bash', args: { command: 'ls' }, obs: 'calc/\ntests/\nsetup.py' },
  { thought: "The file `calc/ops.py` is located in the `calc` directory. Let's open calc/ops.py to look at the divide function.", tool: 'bash', args: { command: 'cat calc/ops.py' }, obs: 'def divide(a, b):\n    return a / b' },
  { thought: 'We have the flag!', tool: 'bash', args: { command: 'python -c "import calc"' }, obs: 'ok' },
  { thought: 'I will add a check for b == 0 in divide and raise ValueError.', tool: 'bash', args: { command: "sed -i 's/return a \\/ b/if b == 0: raise ValueError\\n    return a \\/ b/' calc/ops.py" }, obs: '' },
  { thought: 'Now let me run the tests in tests/test_ops.py to verify the fix.', tool: 'bash', args: { command: 'pytest tests/test_ops.py' }, obs: '3 passed' },
  { thought: 'Submit the fix.', tool: 'submit', args: {}, kind: 'finish', obs: null },
], { tools: [{ name: 'bash', description: 'Run a shell command.' }, { name: 'submit', description: 'Submit the change.' }] });

describe('issue 9 defect classes, builder side', () => {
  it('1. plan golds are the intent of the next step, and a step without intent is not an anchor', async () => {
    expect(intentOf({ thought: "The file `missing_colon.py` is located in the `tests` directory.", plan: null })).toBeNull();
    expect(intentOf({ thought: 'We have the flag!', plan: null })).toBeNull();
    expect(intentOf(sweThoughts.steps[1]!)).toBe("Let's open calc/ops.py to look at the divide function.");
    const built = await buildQuestions([sweThoughts], { kinds: ['plan_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10, choices: 2 });
    const golds = mcqs(built.questions).map((q) => q.choices[q.gold]);
    expect(golds.length).toBeGreaterThan(0);
    expect(golds).not.toContain('The file `calc/ops.py` is located in the `calc` directory.');
    expect(mcqs(built.questions).map((q) => q.provenance.step)).not.toContain(2);
    expect(built.skipped['plan_mcq:no-intent']).toBeGreaterThanOrEqual(1);
  });

  it('2 and 5. no option is copied from the prompt, and every option uses an offered tool', async () => {
    const built = await buildQuestions(researchCorpus(), { kinds: ['dr_plan_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10 });
    const qs = mcqs(built.questions);
    expect(qs.length).toBeGreaterThan(2);
    for (const q of qs) {
      const shown = shownBefore(q);
      q.choices.forEach((c) => expect(shown.includes(normaliseChoice(c)), c).toBe(false));
      for (const c of q.choices) expect(q.build.offered_tools).toContain((JSON.parse(c) as { execution: { name: string } }).execution.name);
    }
  });

  it('5. without declared tools the tool list holds only tools used before the anchor', async () => {
    const built = await buildQuestions(researchCorpus(), { kinds: ['dr_plan_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10, choices: 2 });
    const atSearch = mcqs(built.questions).filter((q) => q.provenance.step === 2);
    expect(atSearch.length).toBeGreaterThan(0);
    for (const q of mcqs(built.questions).filter((x) => x.provenance.step === 1)) {
      // Step 1 is the first browse: a gold whose tool nobody offered yet is not asked.
      expect(q.build.offered_tools).toContain('browse_website');
    }
    expect(built.skipped['dr_plan_mcq:gold-tool-not-offered']).toBeGreaterThan(0);
    for (const q of atSearch) expect(q.build.offered_tools).not.toContain('task_complete');
  });

  it('3. borrowed steps come from the most similar trajectories, found without scanning the corpus', () => {
    const corpus = researchCorpus();
    const index = new CorpusIndex(corpus);
    expect(index.similar(corpus[0]!)[0]!.traj_id).toBe('validity:dr-rutherford:0');
    const t = corpus[0]!;
    const proposed = STEP_OPERATORS.borrowed_step.propose({ rng: new Rng('x'), trajectory: t, position: 2, gold: candidateOf(t.steps[2]!), corpus: index, offered: new Set(['web_search', 'browse_website']) });
    expect(proposed.length).toBeGreaterThan(0);
    expect(proposed[0]!.plan).toMatch(/Rutherford|Cavendish/);
    for (const p of proposed) expect(p.reason).toBeTruthy();
  });

  it('4. perturbations substitute a whole entity the agent met, never a token swap or a typo', () => {
    const t = researchCorpus()[0]!;
    const gold = candidateOf(t.steps[2]!);
    const proposed = STEP_OPERATORS.off_target_argument.propose({ rng: new Rng('y'), trajectory: t, position: 2, gold, corpus: new CorpusIndex([t]) });
    expect(proposed.length).toBeGreaterThan(0);
    const prior = [t.task.goal, ...t.steps.slice(0, 2).map((s) => `${s.action.text}\n${s.observation}`)].join('\n');
    for (const p of proposed) {
      const m = /^about (.+) instead of (.+), which/.exec(p.reason!);
      expect(m, p.reason).not.toBeNull();
      expect(prior).toContain(m![1]);
      expect(p.action.text).toContain(m![1]);
    }
    expect(STEP_OPERATORS).not.toHaveProperty('typo');
  });

  it('6. no option names a string first seen after the asked step', async () => {
    const flag = 'HTB{d1v1d3_by_z3r0}';
    const ctf = traj('ctf', 'swe', 'Find the flag hidden by the calculator service.', [
      { thought: "Let's list the files of the service.", tool: 'bash', args: { command: 'ls' }, obs: 'server.py\nclient.py\nutils.py\nnotes.txt\nconfig.txt\nhints.txt' },
      { thought: "Let's read notes.txt for hints.", tool: 'bash', args: { command: 'cat notes.txt' }, obs: 'divide by zero to get the flag' },
      { thought: "Let's read server.py to see how division is handled.", tool: 'bash', args: { command: 'cat server.py' }, obs: 'def div(a, b): ...' },
      { thought: "Let's send a division by zero to the service.", tool: 'bash', args: { command: 'python -c "print(1)" | nc localhost 9000' }, obs: `result: ${flag}` },
      { thought: `I will submit the flag ${flag}.`, tool: 'submit', args: { flag }, text: `submit '${flag}'`, kind: 'finish', obs: null },
    ], { tools: [{ name: 'bash', description: 'Run a shell command.' }, { name: 'submit', description: 'Submit the flag.' }] });
    let asked = 0;
    for (const seed of ['0', '1', '2', '3']) {
      const built = await buildQuestions([ctf, sweThoughts], { seed, kinds: ['next_action_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10, choices: 3 });
      const early0 = mcqs(built.questions).filter((q) => q.provenance.traj_id === ctf.traj_id);
      const early = early0.filter((q) => q.provenance.step! < 4);
      asked += early.length;
      for (const q of early) for (const c of q.choices) expect(c).not.toContain(flag);
    }
    expect(asked).toBeGreaterThan(0);
  });

  it('7. undecidable anchors are skipped with a counted reason: an edit whose body the option cannot show', async () => {
    const edits = traj('edits', 'swe', 'Fix the off-by-one in range_end.', [
      { thought: "Let's open util.py.", tool: 'open', args: { path: 'util.py' }, text: 'open util.py', obs: '1 def range_end(n):\n2     return n\n3 ' },
      { thought: 'I will change line 2 to return n - 1.', tool: 'edit', args: {}, text: 'edit 2:2', obs: 'File updated.' },
      { thought: 'I will add a docstring on line 3.', tool: 'edit', args: {}, text: 'edit 3:3', obs: 'File updated.' },
      { thought: "Let's run python util.py to check.", tool: 'bash', args: { command: 'python util.py' }, obs: 'ok' },
      { thought: 'Submit.', tool: 'submit', args: {}, kind: 'finish', obs: null },
    ], { tools: [{ name: 'open', description: 'Open a file.' }, { name: 'edit', description: 'Edit lines.' }, { name: 'submit', description: 'Submit.' }, { name: 'bash', description: 'Shell.' }] });
    const built = await buildQuestions([edits, sweThoughts], { kinds: ['next_action_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10, choices: 2 });
    expect(built.skipped['next_action_mcq:edit-body-missing']).toBeGreaterThanOrEqual(2);
    for (const q of mcqs(built.questions)) for (const c of q.choices) expect(c).not.toMatch(/^edit \d+:\d+$/);
  });

  it('7. once an observation holds the final answer, finishing is not offered as a wrong option', async () => {
    let asked = 0;
    for (const seed of ['0', '1', '2', '3', '4', '5']) {
      const built = await buildQuestions(researchCorpus(), { seed, kinds: ['dr_plan_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10, choices: 3 });
      // In dr-rutherford the first search result already names the University of Cambridge.
      const late = mcqs(built.questions).filter((q) => q.provenance.traj_id === 'validity:dr-rutherford:0' && q.provenance.step! >= 1);
      asked += late.length;
      for (const q of late) q.choices.forEach((c, i) => i !== q.gold && expect(c).not.toContain('task_complete'));
    }
    expect(asked).toBeGreaterThan(0);
  });

  it('8. ids depend only on the question’s own trajectory, anchor, kind and seed', async () => {
    const base = [...researchCorpus().slice(0, 2), sweThoughts];
    const opts = { shots: 0, tokenizer: 'chars' as const, maxPerTrajectory: 10, includeUnproven: true };
    const before = await buildQuestions(base, opts);
    const extra = traj('dr-unrelated', 'deep_research', 'What colour is the flag of Gabon?', [
      { plan: 'Search for the flag of Gabon.', tool: 'web_search', args: { text: 'flag of Gabon colours' }, obs: 'green, yellow and blue' },
      { plan: 'Search for the meaning of the Gabon flag colours to confirm.', tool: 'web_search', args: { text: 'Gabon flag meaning' }, obs: 'green forests, yellow sun, blue sea' },
      { plan: 'Indicate task completion as the answer has been found.', tool: 'task_complete', args: {}, obs: null },
    ], { framework: 'deep-research', answer: 'green, yellow and blue' });
    const after = await buildQuestions([extra, ...base, researchCorpus()[2]!], opts);
    const afterIds = new Set(after.questions.map((q) => q.id));
    expect(before.questions.length).toBeGreaterThan(3);
    for (const q of before.questions) expect(afterIds.has(q.id), q.id).toBe(true);
    // A review status file written for the first build still applies to the second.
    const statuses = new Map(before.questions.map((q) => [q.id, { id: q.id, status: 'approved' as const }]));
    expect(reviewCoverage(after.questions, statuses).stale).toEqual([]);
    expect(filterApproved(after.questions, statuses).length).toBe(before.questions.length);
    // Distractors may change with the corpus; that is recorded, not folded into the id.
    const corpusOf = (qs: typeof before.questions) => new Set(mcqs(qs).filter((q) => q.kind === 'dr_plan_mcq').map((q) => q.build.corpus));
    expect([...corpusOf(before.questions)][0]).not.toBe([...corpusOf(after.questions)][0]);
  });

  it('9. the same (prefix, gold) from overlapping rows is one question', async () => {
    const built = await buildQuestions(prefixRows(), { kinds: ['dr_plan_mcq'], shots: 0, tokenizer: 'chars', maxPerTrajectory: 10, choices: 2 });
    const keys = mcqs(built.questions).map((q) => `${q.provenance.step}:${q.choices[q.gold]}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(built.skipped['dr_plan_mcq:near-duplicate']).toBeGreaterThanOrEqual(1);
  });

  it('records question_start exactly, language, and a reason per distractor', async () => {
    const built = await buildQuestions([...researchCorpus(), ...prefixRows()], { kinds: ['dr_plan_mcq'], tokenizer: 'chars', maxPerTrajectory: 10, fewshotFraction: 0.5 });
    const qs = mcqs(built.questions);
    for (const q of qs) {
      expect(q.prompt.slice(q.question_start!)).toMatch(/^Question: /);
      // Everything before the segment is instructions and solved examples (one per fewshot id).
      expect(q.prompt.slice(0, q.question_start!).split('Question: ').length - 1).toBe(q.build.fewshot_ids!.length);
      expect(q.prompt.slice(q.question_start!).split('Question: ').length).toBe(2);
      expect(q.language).toBe('en');
      expect(q.build.choice_reasons).toHaveLength(q.choices.length);
      q.build.choice_reasons!.forEach((r, i) => (i === q.gold ? expect(r).toBe('') : expect(r.length).toBeGreaterThan(10)));
    }
  });
});
