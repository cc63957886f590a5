import type { CompletionQuestion, McqQuestion, Question } from '../../questions/types.js';
import type { MetricName } from '../metrics.js';
import { ANSWER_FILTER } from '../metrics.js';
import { FunctionRef, type TaskConfigSubset } from '../task-config.js';
import type { EmitFindingCode } from '../findings.js';

export type TaskKind = 'mcq_letter' | 'mcq_option' | 'completion_exact_match' | 'completion_rouge' | 'completion_exact_match_rouge' | 'completion_tool_call' | 'multi_select';

/** One JSONL row. Only strings, ints, booleans and string lists: the harness's doc_hash is then reproducible in JS. */
export type DocRow = Record<string, string | number | boolean | string[]>;

export interface KindProblem {
  code: EmitFindingCode;
  field: string;
  args: Record<string, unknown>;
}

export interface TaskKindSpec<Q extends Question = Question> {
  kind: TaskKind;
  title: string;
  format: Q['format'];
  outputType: 'multiple_choice' | 'generate_until';
  metrics: readonly MetricName[];
  /** A `process_results` function this kind needs in utils.py. */
  processResults?: { name: string; exactMatch: boolean; rouge: boolean };
  /** A separate scorer block of utils.py this kind needs (its own process_results function). */
  utilsBlock?: 'tool_call' | 'multi_select';
  /** Problems that make a question unusable for this kind. */
  check(q: Q): KindProblem[];
  /** The JSONL row; `shotTarget` adds the column few-shot examples render as their answer. */
  document(q: Q, shotTarget: boolean): DocRow;
  /** Kind-specific TaskConfig keys for one task made of `questions`. */
  config(questions: Q[]): TaskConfigSubset;
}

/** The prompt with the answer stem, appended unless the builder already ended the prompt with it. */
export function promptBase(q: Question): { base: string; stem: string } {
  const stem = q.answer_stem;
  const base = stem !== '' && q.prompt.endsWith(stem) ? q.prompt.slice(0, q.prompt.length - stem.length) : q.prompt;
  return { base, stem };
}

const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };

/**
 * What a worked example appends after its answer so it reads as finished: the bracket the
 * stem opened (`is (` → `A)`, `is [` → `Paris]`), or the fence a code-block stem opened.
 */
export function closerFor(context: string): string {
  if (/```[\w+-]*\n$/.test(context)) return '\n```';
  return CLOSERS[context.slice(-1)] ?? '';
}

/** No space after whitespace or an opening bracket (`is (` + `A`), otherwise one (`Answer:` + ` A`). */
export function joinerFor(context: string): string {
  return context === '' || /[\s([{<]$/u.test(context) ? '' : ' ';
}

/** Columns every row carries for log analysis, after the ones the task reads. */
export function commonColumns(q: Question): DocRow {
  return { kind: q.kind, traj_id: q.provenance.traj_id, length_bucket: q.length_bucket, prompt_tokens: q.prompt_tokens };
}

export function checkPrompt(q: Question): KindProblem[] {
  const out: KindProblem[] = [];
  if (q.prompt.trim() === '') out.push({ code: 'emit-empty-prompt', field: 'prompt', args: { id: q.id } });
  const texts: Array<[string, string]> = [['prompt', q.prompt], ['answer_stem', q.answer_stem]];
  if (q.format === 'mcq') q.choices.forEach((c, i) => texts.push([`choices[${i}]`, c]));
  else q.targets.forEach((t, i) => texts.push([`targets[${i}]`, t]));
  for (const [field, text] of texts) {
    // A lone surrogate cannot be encoded as UTF-8: the harness's dataset and doc_hash would fail.
    if (LONE_SURROGATE.test(text)) out.push({ code: 'emit-invalid-text', field, args: { id: q.id } });
  }
  return out;
}

const LONE_SURROGATE = /\p{Cs}/u;

export function checkChoices(q: McqQuestion, maxChoices: number): KindProblem[] {
  const out: KindProblem[] = [...checkPrompt(q)];
  if (q.choices.length < 2) out.push({ code: 'emit-mcq-too-few-choices', field: 'choices', args: { id: q.id, count: q.choices.length } });
  if (q.choices.length > maxChoices) out.push({ code: 'emit-mcq-too-many-choices', field: 'choices', args: { id: q.id, count: q.choices.length, max: maxChoices } });
  if (!Number.isInteger(q.gold) || q.gold < 0 || q.gold >= q.choices.length) {
    out.push({ code: 'emit-mcq-gold-out-of-range', field: 'gold', args: { id: q.id, gold: q.gold, count: q.choices.length } });
  }
  q.choices.forEach((choice, index) => {
    if (choice.trim() === '') out.push({ code: 'emit-empty-choice', field: `choices[${index}]`, args: { id: q.id, index } });
  });
  return out;
}

export type { CompletionQuestion, McqQuestion };

/**
 * The filter pipeline of every completion kind: the generation's first non-empty line
 * (`utils.first_line`), then `take_first`. It carries the shared filter name so each metric,
 * the headline above all, has one results key across multiple-choice and completion tasks.
 */
export function answerFilterList(): NonNullable<TaskConfigSubset['filter_list']> {
  return [{ name: ANSWER_FILTER, filter: [{ function: 'custom', filter_fn: new FunctionRef('utils.first_line') }, { function: 'take_first' }] }];
}
