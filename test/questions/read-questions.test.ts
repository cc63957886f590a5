import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { readQuestions, validateQuestion } from '../../generator/core/questions/read-questions.js';
import type { CompletionQuestion, McqQuestion } from '../../generator/core/questions/types.js';

function mcq(overrides: Partial<McqQuestion> = {}): McqQuestion {
  return {
    schema_version: 'question/1',
    id: 'plan_mcq.0123456789abcdef',
    kind: 'plan_mcq',
    task: 'aptpace_swe_plan_mcq',
    format: 'mcq',
    prompt: 'Request: pick.\nChoices:\n(A) a\n(B) b\nThe correct next step plan is (',
    prompt_tokens: 20,
    length_bucket: '<=4K',
    truncated: false,
    provenance: { traj_id: 't:1:0', source_path: 'x.jsonl', source_line: 1, step: 2, framework: 'swe-agent' },
    build: { seed: '0', template: 'plan_mcq@abcd1234' },
    choices: ['Open a.py.', 'Open b.py.'],
    gold: 1,
    answer_stem: 'The correct next step plan is (',
    ...overrides,
  };
}

function completion(overrides: Partial<CompletionQuestion> = {}): CompletionQuestion {
  return {
    schema_version: 'question/1',
    id: 'next_action_tc.00000000000000aa',
    kind: 'next_action_tc',
    task: 'aptpace_swe_next_action',
    format: 'completion',
    prompt: 'The next command:\n```bash\n',
    prompt_tokens: 8,
    length_bucket: '<=4K',
    truncated: false,
    provenance: { traj_id: 't:1:0', source_path: 'x.jsonl', step: 1, framework: 'swe-agent' },
    build: { seed: '0', template: 'next_action_tc@abcd1234' },
    targets: ['ls'],
    metric: 'exact_match',
    stop: ['\n'],
    answer_stem: 'The next command:\n```bash\n',
    ...overrides,
  };
}

const line = (v: unknown) => `${JSON.stringify(v)}\n`;

describe('validateQuestion', () => {
  it('accepts well-formed MCQ and completion questions', () => {
    expect(validateQuestion(mcq())).toEqual([]);
    expect(validateQuestion(completion())).toEqual([]);
  });

  it('names the field of a schema violation in the branch of the record format', () => {
    const bad = { ...mcq(), gold: 'B' };
    const f = validateQuestion(bad);
    expect(f.map((x) => [x.code, x.path.field])).toEqual([['question-schema', 'gold']]);
    const missing = completion();
    delete (missing as Partial<CompletionQuestion>).targets;
    expect(validateQuestion(missing).map((x) => [x.code, x.path.field])).toEqual([['question-schema', 'targets']]);
  });

  it('warns when the prompt does not end with its answer stem', () => {
    expect(validateQuestion(mcq({ answer_stem: 'The answer is (' })).map((x) => [x.code, x.severity, x.path.field])).toEqual([['question-stem-not-at-end', 'warning', 'answer_stem']]);
  });

  it('rejects an empty prompt', () => {
    expect(validateQuestion(mcq({ prompt: '', answer_stem: '' })).map((x) => [x.code, x.path.field])).toEqual([['question-schema', 'prompt']]);
  });

  it('rejects unknown fields, unknown kinds and task names outside the harness charset', () => {
    expect(validateQuestion({ ...mcq(), colour: 'red' }).map((x) => x.path.field)).toEqual(['colour']);
    expect(validateQuestion({ ...mcq(), kind: 'dr_citation_mcq' }).map((x) => x.path.field)).toEqual(['kind']);
    expect(validateQuestion({ ...mcq(), task: 'aptpace-swe plan' }).map((x) => x.path.field)).toEqual(['task']);
  });

  it('checks what the schema cannot: gold in range, distinct choices, task matching kind', () => {
    expect(validateQuestion(mcq({ gold: 2 })).map((x) => x.code)).toEqual(['question-gold-out-of-range']);
    const dup = validateQuestion(mcq({ choices: ['Open a.py.', 'open  A.py'] }));
    expect(dup.map((x) => [x.code, x.path.field])).toEqual([['question-duplicate-choice', 'choices[1]']]);
    const renamed = validateQuestion(mcq({ task: 'aptpace_swe_next_action_mcq' }));
    expect(renamed.map((x) => [x.code, x.severity])).toEqual([['question-task-mismatch', 'warning']]);
  });
});

describe('readQuestions', () => {
  it('reads good lines, reports bad ones with file, line and field, and keeps going', async () => {
    const good1 = mcq();
    const good2 = completion();
    const bytes = [
      line(good1),
      '{"not json\n',
      '\n',
      line({ ...mcq({ id: 'plan_mcq.ffff' }), gold: -1 }),
      line(good1),
      line(good2),
    ].join('');
    const bad = new Uint8Array([...new TextEncoder().encode(bytes), 0xff, 0xfe, 0x0a, ...new TextEncoder().encode(JSON.stringify(completion({ id: 'next_action_tc.last' })))]);
    const vfs = new MemoryVfs({ 'q.jsonl': bad });
    const { questions, findings, tally } = await readQuestions(vfs, ['q.jsonl', 'missing.jsonl']);
    expect(questions.map((q) => q.id)).toEqual([good1.id, good2.id, 'next_action_tc.last']);
    expect(findings.map((f) => [f.code, f.path.file, f.path.line, f.path.field])).toEqual([
      ['question-invalid-json', 'q.jsonl', 2, undefined],
      ['question-schema', 'q.jsonl', 4, 'gold'],
      ['question-duplicate-id', 'q.jsonl', 5, 'id'],
      ['question-invalid-utf8', 'q.jsonl', 7, undefined],
      ['question-unterminated-line', 'q.jsonl', 8, undefined],
      ['question-missing-file', 'missing.jsonl', undefined, undefined],
    ]);
    expect(tally).toEqual({ read: 7, accepted: 3, rejected: 4 });
  });
});
