import type { CompletionQuestion, McqQuestion } from '../../generator/core/questions/types.js';

let counter = 0;

/** A schema-shaped MCQ for unit tests; only what a test names differs from the defaults. */
export function mcq(over: Partial<McqQuestion> & Pick<McqQuestion, 'choices' | 'gold'>): McqQuestion {
  counter++;
  return {
    schema_version: 'question/1',
    id: over.id ?? `q${String(counter).padStart(5, '0')}`,
    kind: 'plan_mcq',
    task: 'aptpace_swe_plan_mcq',
    format: 'mcq',
    prompt: over.prompt ?? `Request ${counter}: pick the next step.\n`,
    prompt_tokens: 10,
    length_bucket: '<=4K',
    truncated: false,
    provenance: { traj_id: `t${counter}`, source_path: 'x.traj', source_line: null, step: 1, framework: 'swe-agent' },
    build: { seed: 's', template: 'plan_mcq.hbs' },
    answer_stem: 'The correct next step is (',
    ...over,
  };
}

export function completion(over: Partial<CompletionQuestion> & Pick<CompletionQuestion, 'targets' | 'prompt'>): CompletionQuestion {
  counter++;
  return {
    schema_version: 'question/1',
    id: over.id ?? `c${String(counter).padStart(5, '0')}`,
    kind: 'next_action_tc',
    task: 'aptpace_swe_next_action',
    format: 'completion',
    prompt_tokens: 10,
    length_bucket: '<=4K',
    truncated: false,
    provenance: { traj_id: `t${counter}`, source_path: 'x.traj', source_line: null, step: 1, framework: 'swe-agent' },
    build: { seed: 's', template: 'next_action_tc.hbs' },
    answer_stem: '',
    metric: 'exact_match',
    stop: ['\n'],
    ...over,
  };
}
