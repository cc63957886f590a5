import { describe, expect, it, beforeAll } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { planSuite, type PlanOptions, compareVersions } from '../../generator/core/emit/plan.js';
import { builtinTaskNames, type BuiltinTaskNames } from '../../generator/core/emit/names.js';
import { loadSuiteTemplates, type SuiteTemplates } from '../../generator/core/emit/templates.js';
import { readBackYaml, validateConfig, toHarnessYaml, roundTrips } from '../../generator/core/emit/yaml-io.js';
import { FunctionRef } from '../../generator/core/emit/task-config.js';
import type { Question } from '../../generator/core/questions/types.js';
import { completion, fixtureQuestions, mcq } from './support.js';

let builtins: BuiltinTaskNames;
let templates: SuiteTemplates;
let questions: Question[];
beforeAll(async () => {
  builtins = await builtinTaskNames();
  templates = await loadSuiteTemplates(nodeVfs);
  questions = await fixtureQuestions();
});

const defaults: PlanOptions = { suite: 'aptpace_test', scoring: 'letter', numFewshot: 3, harnessVersion: '0.4.13' };
const plan = (qs: Question[], over: Partial<PlanOptions> = {}) => planSuite(qs, { ...defaults, ...over }, builtins, templates);
const codes = (p: { findings: { code: string }[] }) => p.findings.map((f) => f.code);
const rows = (text: string) => text.trimEnd().split('\n').map((l) => JSON.parse(l));

describe('planSuite on the fixture questions', () => {
  it('makes one task per question task, a group, include bases, data, utils.py and a README', () => {
    const p = plan(questions, { fewshot: 'split' });
    expect(codes(p)).toEqual(['emit-fewshot-split-excluded', 'emit-fewshot-none', 'emit-fewshot-none', 'emit-fewshot-none', 'emit-fewshot-short']);
    expect(p.tasks.map((t) => [t.task, t.kind, t.docs, t.fewshot])).toEqual([
      ['aptpace_dr_answer', 'completion_exact_match_rouge', 4, 0],
      ['aptpace_dr_answer_rouge', 'completion_rouge', 3, 0],
      ['aptpace_env_setup_plan_mcq', 'mcq_letter', 3, 0],
      ['aptpace_swe_next_action', 'completion_exact_match', 5, 2],
      ['aptpace_swe_plan_mcq', 'mcq_letter', 6, 3],
    ]);
    expect([...p.files.keys()]).toEqual([
      'README.md',
      '_aptpace_test.yaml',
      '_aptpace_test_completion_exact_match_rouge_template_yaml',
      '_aptpace_test_completion_exact_match_template_yaml',
      '_aptpace_test_completion_rouge_template_yaml',
      '_aptpace_test_dr.yaml',
      '_aptpace_test_mcq_letter_template_yaml',
      '_aptpace_test_swe.yaml',
      'aptpace_dr_answer.yaml',
      'aptpace_dr_answer_rouge.yaml',
      'aptpace_env_setup_plan_mcq.yaml',
      'aptpace_swe_next_action.yaml',
      'aptpace_swe_plan_mcq.yaml',
      'data/aptpace_dr_answer.test.jsonl',
      'data/aptpace_dr_answer_rouge.test.jsonl',
      'data/aptpace_env_setup_plan_mcq.test.jsonl',
      'data/aptpace_swe_next_action.fewshot.jsonl',
      'data/aptpace_swe_next_action.test.jsonl',
      'data/aptpace_swe_plan_mcq.fewshot.jsonl',
      'data/aptpace_swe_plan_mcq.test.jsonl',
      'utils.py',
    ]);
  });

  it('is byte-identical whatever the input order', () => {
    const a = plan(questions, { fewshot: 'split' });
    const shuffled = [...questions].reverse();
    const b = plan([shuffled[3]!, ...shuffled.slice(0, 3), ...shuffled.slice(4)], { fewshot: 'split' });
    expect([...b.files]).toEqual([...a.files]);
  });

  it('writes rows sorted by id, with the prompt verbatim in the query column, never in YAML', () => {
    const p = plan(questions);
    const plans = rows(p.files.get('data/aptpace_swe_plan_mcq.test.jsonl')!);
    const ids = plans.map((r) => r.id);
    expect(ids).toEqual([...ids].sort());
    const source = questions.find((q) => q.id === plans[0].id)!;
    // The builder's prompt already ends with the stem: it must not be doubled.
    expect(source.prompt.endsWith(source.answer_stem)).toBe(true);
    expect(plans[0].query).toBe(source.prompt);
    expect(plans[0].choices).toEqual(['A', 'B', 'C', 'D']);
    for (const [file, text] of p.files) {
      if (!file.endsWith('yaml')) continue;
      for (const q of questions) expect(text.includes(q.prompt.slice(0, 40)), `${file} inlines prompt text`).toBe(false);
    }
  });

  it('quotes every string scalar and tags functions, and each YAML reads back as built', () => {
    const p = plan(questions, { fewshot: 'split' });
    for (const [file, text] of p.files) {
      if (!file.endsWith('yaml')) continue;
      for (const line of text.split('\n')) {
        const value = line.replace(/^\s*(- )?([A-Za-z_]+: )?/, '');
        if (value === '' || line.trimEnd().endsWith(':')) continue;
        expect(value, `${file}: ${line}`).toMatch(/^("(?:[^"\\]|\\.)*"|true|false|-?\d+|!function "[A-Za-z_]+\.[A-Za-z_]+")$/);
      }
      expect(readBackYaml(text).ok).toBe(true);
    }
    expect(p.files.get('aptpace_swe_plan_mcq.yaml')).toContain('fewshot_split: "fewshot"');
    expect(p.files.get('_aptpace_test_mcq_letter_template_yaml')).toContain('custom_dataset: !function "utils.load"');
    // The headline is the macro average over tasks (see groups.ts); size weighting only on request.
    expect(p.files.get('_aptpace_test.yaml')).toContain('weight_by_size: false');
    expect(p.files.get('_aptpace_test.yaml')).not.toContain('weight_by_size: true');
  });

  it('names the stem in option scoring without its bracket and scores whole options', () => {
    const p = plan(questions, { scoring: 'option' });
    const r = rows(p.files.get('data/aptpace_swe_plan_mcq.test.jsonl')!)[0];
    const source = questions.find((q) => q.id === r.id)! as Extract<Question, { format: 'mcq' }>;
    expect(r.query).toBe(source.prompt.slice(0, -'The correct next step plan is ('.length) + 'The correct next step plan is');
    expect(r.choices).toEqual(source.choices.map((c) => ` ${c}`));
    expect(p.tasks.find((t) => t.task === 'aptpace_swe_plan_mcq')!.kind).toBe('mcq_option');
    expect(p.files.get('_aptpace_test_mcq_option_template_yaml')).toContain('metric: "acc_norm"');
  });
});

describe('few-shot', () => {
  it('draws examples only from the few-shot split, and never evaluates them', () => {
    const p = plan(questions, { fewshot: 'split' });
    const test = rows(p.files.get('data/aptpace_swe_plan_mcq.test.jsonl')!).map((r) => r.id);
    const shots = rows(p.files.get('data/aptpace_swe_plan_mcq.fewshot.jsonl')!);
    const marked = questions.filter((q) => q.split === 'fewshot' && q.task === 'aptpace_swe_plan_mcq').map((q) => q.id).sort();
    expect(shots.map((r) => r.id)).toEqual(marked);
    expect(test.filter((id) => marked.includes(id))).toEqual([]);
    // A worked example closes the bracket its stem opened.
    expect(shots.map((r) => r.shot_target)).toEqual(shots.map((r) => `${'ABCD'[r.gold]})`));
  });

  it('closes a code fence or bracket the stem opened in worked completion examples', () => {
    const pool = [completion({ id: 'p1', prompt: 'Earlier:\nls\n' }), completion({ id: 'p2', kind: 'dr_answer_tc', task: 't_answer', answer_stem: 'The answer is [', targets: ['Paris'], stop: [']'], metric: 'exact_match+rouge' })];
    const test = [completion({ id: 't1' }), completion({ id: 't2', kind: 'dr_answer_tc', task: 't_answer', prompt: 'Q?\n', answer_stem: 'The answer is [', targets: ['Rome'], stop: [']'], metric: 'exact_match+rouge' })];
    const p = plan(test, { fewshot: pool, numFewshot: 1 });
    expect(rows(p.files.get('data/aptpace_swe_next_action.fewshot.jsonl')!)[0].shot_target).toBe('cat setup.py\n```');
    expect(rows(p.files.get('data/t_answer.fewshot.jsonl')!)[0].shot_target).toBe('Paris]');
  });

  it('sets num_fewshot: 0 without a pool so --num_fewshot cannot reach the test split', () => {
    const p = plan(questions);
    expect(p.files.get('aptpace_swe_plan_mcq.yaml')).toContain('num_fewshot: 0');
    expect(p.files.has('data/aptpace_swe_plan_mcq.fewshot.jsonl')).toBe(false);
    expect(p.files.get('aptpace_swe_plan_mcq.yaml')).not.toContain('fewshot_split');
  });

  it('drops a pool question that is also a test question (same id or same prompt)', () => {
    const test = [mcq({ id: 't1' }), mcq({ id: 't2', prompt: 'Other prompt.\n' })];
    const pool = [mcq({ id: 't1' }), mcq({ id: 'p1', prompt: 'Other prompt.\n' }), mcq({ id: 'p2', prompt: 'A worked example.\n' })];
    const p = plan(test, { fewshot: pool, numFewshot: 1 });
    expect(p.findings.filter((f) => f.code === 'emit-fewshot-overlap').map((f) => f.args.id)).toEqual(['t1', 'p1']);
    expect(rows(p.files.get('data/aptpace_swe_plan_mcq.fewshot.jsonl')!).map((r) => r.id)).toEqual(['p2']);
  });

  it('warns when harness examples would be added to prompts that already have some', () => {
    const withShots = { seed: 's', template: 't', fewshot_ids: ['elsewhere'] };
    const p = plan([mcq({ id: 't1', build: withShots })], { fewshot: [mcq({ id: 'p1', prompt: 'Example.\n' })], numFewshot: 1 });
    expect(p.findings.find((f) => f.code === 'emit-fewshot-doubled')?.args).toEqual({ task: 'aptpace_swe_plan_mcq', count: 1, shots: 1 });
    expect(codes(plan([mcq({ id: 't1', build: withShots })]))).not.toContain('emit-fewshot-doubled');
  });

  it('refuses a question that lists itself among its in-prompt examples', () => {
    const p = plan([mcq({ id: 'self', build: { seed: 's', template: 't', fewshot_ids: ['other', 'self'] } })]);
    expect(codes(p)).toContain('emit-fewshot-self-reference');
    expect(p.files.size).toBe(0);
  });
});

describe('documents', () => {
  it('appends the stem when the prompt does not end with it, with the right joiner', () => {
    const p = plan([mcq({ prompt: 'Pick one.\n(A) x\n(B) y\n', answer_stem: 'Answer:', choices: ['x', 'y'] })]);
    const r = rows(p.files.get('data/aptpace_swe_plan_mcq.test.jsonl')!)[0];
    expect(r.query).toBe('Pick one.\n(A) x\n(B) y\nAnswer:');
    expect(r.choices).toEqual([' A', ' B']);
  });

  it('normalises completion references like the first_line filter and keeps them as a list', () => {
    const q = completion({ targets: ['```bash\n$ cd /testbed &&   ls\n```', 'cd /testbed && ls', 'ls -la'], stop: ['\n', '```'] });
    const p = plan([q]);
    const r = rows(p.files.get('data/aptpace_swe_next_action.test.jsonl')!)[0];
    expect(r.targets).toEqual(['cd /testbed && ls', 'ls -la']);
    const yaml = p.files.get('aptpace_swe_next_action.yaml')!;
    expect(yaml).toContain('until:\n    - "\\n"\n    - "```"');
    // ceil(17 / 2) + 16 = 25, raised to the floor of 32.
    expect(yaml).toContain('max_gen_toks: 32');
  });

  it('keeps YAML-hostile stop sequences exact', () => {
    const stops = ['yes', 'null', '1:30', '{{', '{% raw %}', '\\$', '# x', "'", '"', '\t', '\u0085', '\u2028', '\u2029', '\ufffe', '\u007f'];
    const p = plan([completion({ stop: stops })]);
    const text = p.files.get('aptpace_swe_next_action.yaml')!;
    const back = readBackYaml(text).value as any;
    expect(back.generation_kwargs.until).toEqual([...stops].sort());
    // YAML 1.1 line breaks and non-printables must be escapes, not raw characters.
    expect(text).not.toMatch(/[\u0085\u2028\u2029\ufffe\u007f]/);
    expect(text).toContain('"\\N"');
  });

  it('warns when questions of one task stop differently and stops at any of them', () => {
    const p = plan([completion({ stop: ['\n'] }), completion({ stop: [';'] })]);
    expect(codes(p)).toContain('emit-stop-sequences-differ');
    expect((readBackYaml(p.files.get('aptpace_swe_next_action.yaml')!).value as any).generation_kwargs.until).toEqual(['\n', ';']);
  });
});

describe('bad input: a clear error and no files', () => {
  const cases: Array<[string, () => ReturnType<typeof plan>, string]> = [
    ['an empty question set', () => plan([]), 'emit-no-questions'],
    ['only few-shot questions', () => plan([mcq({ split: 'fewshot' })]), 'emit-no-questions'],
    ['a choice list of length 1', () => plan([mcq({ choices: ['only'], gold: 0 })]), 'emit-mcq-too-few-choices'],
    ['a gold index out of range', () => plan([mcq({ gold: 2 })]), 'emit-mcq-gold-out-of-range'],
    ['an empty choice', () => plan([mcq({ choices: ['a', '  '] })]), 'emit-empty-choice'],
    ['27 choices for letter scoring', () => plan([mcq({ choices: [...Array(27).keys()].map((i) => `c${i}`) })]), 'emit-mcq-too-many-choices'],
    ['an empty prompt', () => plan([mcq({ prompt: ' ', answer_stem: '' })]), 'emit-empty-prompt'],
    ['a completion with no usable reference', () => plan([completion({ targets: ['```\n```'] })]), 'emit-completion-no-targets'],
    ['an invalid suite name', () => plan([mcq()], { suite: 'my suite' }), 'emit-name-invalid'],
    ['a suite name with a path', () => plan([mcq()], { suite: '../escape' }), 'emit-name-invalid'],
    ['an invalid task name', () => plan([mcq({ task: 'a,b' })]), 'emit-name-invalid'],
    ['a task name that would shadow the group file', () => plan([mcq({ task: '_aptpace_test' })]), 'emit-name-invalid'],
    ['a lone surrogate in a choice', () => plan([mcq({ choices: ['ok', 'bad \ud800 text'] })]), 'emit-invalid-text'],
    ['a suite named like a built-in group', () => plan([mcq()], { suite: 'mmlu' }), 'emit-name-builtin'],
    ['a task named like a built-in task', () => plan([mcq({ task: 'arc_easy' })]), 'emit-name-builtin'],
    ['a task named like the suite', () => plan([mcq({ task: 'aptpace_test' })]), 'emit-name-duplicate'],
    ['a task mixing MCQ and completion', () => plan([mcq({ task: 't_mixed' }), completion({ task: 't_mixed' })]), 'emit-task-mixed'],
    ['two test questions with one id', () => plan([mcq({ id: 'same' }), mcq({ id: 'same', prompt: 'Another.\n' })]), 'emit-duplicate-id'],
    ['a harness older than 0.4.9', () => plan([mcq()], { harnessVersion: '0.4.8' }), 'emit-harness-version-unsupported'],
  ];
  for (const [what, make, code] of cases) {
    it(what, () => {
      const p = make();
      expect(codes(p)).toContain(code);
      expect(p.findings.find((f) => f.code === code)!.severity).toBe('error');
      expect(p.files.size).toBe(0);
    });
  }

  it('points at the offending record and field', () => {
    const p = plan([mcq(), mcq({ id: 'bad', choices: ['a', ''] })]);
    const f = p.findings.find((x) => x.code === 'emit-empty-choice')!;
    expect(f.path).toEqual({ record: 1, field: 'choices[1]' });
    expect(f.args.id).toBe('bad');
  });

  it('warns about an untested harness version and a name snapshot from another version', () => {
    const p = plan([mcq()], { harnessVersion: '0.4.11' });
    expect(codes(p)).toEqual(expect.arrayContaining(['emit-harness-version-untested', 'emit-builtin-names-version']));
    expect(p.files.size).toBeGreaterThan(0);
  });
});

describe('schema and YAML helpers', () => {
  it('rejects keys TaskConfig does not have, unquoted versions and metrics without aggregation', () => {
    expect(validateConfig('task-file', { task: 'x', group: 'g' }).map((p) => p.problem)).toEqual([expect.stringContaining('additionalProperties')]);
    expect(validateConfig('task-file', { metadata: { version: 1 } })).not.toEqual([]);
    expect(validateConfig('task-file', { metric_list: [{ metric: 'rouge1', higher_is_better: true }] })).not.toEqual([]);
    expect(validateConfig('group', { group: 'g', task: ['a'], aggregate_metric_list: [{ metric: 'acc', aggregation: 'mean' }], metadata: { version: '1' } })).not.toEqual([]);
    expect(validateConfig('task-file', { custom_dataset: new FunctionRef('utils.load') })).toEqual([]);
    expect(validateConfig('task-file', { custom_dataset: new FunctionRef('../x.load') })).not.toEqual([]);
  });

  it('detects a YAML that would not read back as written', () => {
    const config = { doc_to_text: 'query' };
    expect(roundTrips(config, toHarnessYaml(config))).toBe(true);
    expect(roundTrips(config, 'doc_to_text: query2\n')).toBe(false);
    expect(roundTrips({ until: ['yes'] }, 'until: [yes]\n')).toBe(false);
  });

  it('compares versions numerically', () => {
    expect(compareVersions('0.4.13', '0.4.9')).toBe(1);
    expect(compareVersions('0.4.13.dev0', '0.4.13')).toBe(0);
    expect(compareVersions('0.4.8', '0.4.9')).toBe(-1);
  });
});
