/**
 * A built question: what the emitter turns into one JSONL document of a harness task.
 * The JSON Schema in questions/schema.ts is the contract; these types mirror it.
 */
export const QUESTION_SCHEMA_VERSION = 'question/1';

/** Every question type; each has one module under questions/types/ and a row in the registry. */
export type QuestionKind =
  | 'plan_mcq'
  | 'next_action_tc'
  | 'next_action_mcq'
  | 'bug_locate_mcq'
  | 'fix_patch_mcq'
  | 'test_patch_mcq'
  | 'env_setup_plan_mcq'
  | 'env_setup_action_tc'
  | 'dr_plan_mcq'
  | 'dr_answer_tc'
  | 'env_setup_error_mcq'
  | 'issue_fix_tool_call_tc'
  | 'dr_citation_ms';

export type LengthBucket = '<=4K' | '4-16K' | '16-32K' | '>32K';

export type QuestionFormat = 'mcq' | 'completion' | 'multi_select';

export interface QuestionBase {
  schema_version: typeof QUESTION_SCHEMA_VERSION;
  /** Stable, content-derived id (hash of kind + source trajectory + step + gold). */
  id: string;
  kind: QuestionKind;
  /** Harness task this question belongs to, e.g. `aptpace_swe_plan_mcq`. */
  task: string;
  /** Full rendered prompt for a base model, ending just before the answer. */
  prompt: string;
  /** Token count of `prompt` under the configured tokenizer. */
  prompt_tokens: number;
  length_bucket: LengthBucket;
  truncated: boolean;
  /**
   * `fewshot` marks a deterministic subset (a whole trajectory's questions at a time) that
   * harness-side few-shot may draw from; `test` is the evaluation split. Absent = `test`.
   */
  split?: 'test' | 'fewshot';
  provenance: {
    traj_id: string;
    source_path: string;
    source_line?: number | null;
    /** Step index the question is anchored at (the step to predict), null for whole-trajectory questions. */
    step: number | null;
    framework: string;
    instance_id?: string;
    /**
     * The research question or issue, when runs under other instance ids share it (another
     * agent's run, a translation): the learned adversary's folds keep it whole. Absent = `instance_id`.
     */
    source_group?: string;
  };
  /** Language of the question's own text; absent = 'en'. */
  language?: 'en' | 'zh';
  /**
   * Offset (UTF-16 code units) into `prompt` where the scored question segment begins, after
   * instructions, the shared tool list and few-shot examples. Absent = 0 (whole prompt).
   */
  question_start?: number;
  /** Seed and operator names that produced distractors, for audit. */
  build: {
    seed: string;
    operators?: string[];
    /** Aligned with `choices`: `gold` or the operator that made that distractor. */
    choice_sources?: string[];
    template: string;
    tokenizer?: string;
    budget_tokens?: number;
    /** Ids of the questions whose solved forms appear as in-prompt few-shot examples. */
    fewshot_ids?: string[];
    llm_model?: string;
    /** Tool names the prompt offers the agent (declared, or seen before the anchor step). */
    offered_tools?: string[];
    /** Aligned with `choices`: one line on why each distractor is wrong ('' for the gold). */
    choice_reasons?: string[];
    /** Content hash of the corpus distractors were drawn from (provenance, not part of the id). */
    corpus?: string;
  };
}

export interface McqQuestion extends QuestionBase {
  format: 'mcq';
  /** Option texts in display order (letters are A, B, C… by position). */
  choices: string[];
  /** Index into `choices` of the correct option. */
  gold: number;
  /** The closing text of `prompt` that stems the answer, e.g. `The correct next step is (`; `prompt` ends with it. */
  answer_stem: string;
}

export interface CompletionQuestion extends QuestionBase {
  format: 'completion';
  /** Reference answer(s); the first is canonical. */
  targets: string[];
  /** `tool_call`: normalised exact match of the call's name and arguments (utils.py scorer). */
  metric: 'exact_match' | 'rouge' | 'exact_match+rouge' | 'tool_call';
  /** Stop sequences for generate_until. */
  stop: string[];
  answer_stem: string;
}

/**
 * Pick every option that applies (e.g. which numbered observations support an answer). The
 * model writes the option numbers; scored by set equality and by F1 (utils.py scorer).
 */
export interface MultiSelectQuestion extends QuestionBase {
  format: 'multi_select';
  /** Option texts in display order, numbered from 1 in the prompt. */
  choices: string[];
  /** Indices into `choices` of every correct option: distinct, ascending, at least one. */
  golds: number[];
  /** The canonical answer text (`1, 3`): what a solved example shows and the scorer parses. */
  targets: string[];
  metric: 'set_match+f1';
  stop: string[];
  answer_stem: string;
}

export type Question = McqQuestion | CompletionQuestion | MultiSelectQuestion;
