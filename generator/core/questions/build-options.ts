/** The build's options and result (build.ts), and the defaults it applies. */
import type { Finding } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import type { LlmAssist } from './llm-assist.js';
import type { TemplateSet } from './render.js';
import type { TokenizerName } from './tokenizer.js';
import type { Question, QuestionKind } from './types.js';
import type { PlanHistory } from './types/module.js';

export interface BuildOptions {
  /** Seed for every random choice; same inputs + seed → byte-identical questions. Default `0`. */
  seed?: string;
  /** Kinds to build; default all. */
  kinds?: readonly QuestionKind[];
  /** Options per multiple-choice question (2–26). Default 4. */
  choices?: number;
  /** Token budget of one whole prompt (few-shot examples included). Default 32768. */
  budgetTokens?: number;
  /** Offline tokenizer for budgets and recorded counts. Default `cl100k_base`. */
  tokenizer?: TokenizerName;
  /** Compiled templates; otherwise the shipped ones (overridden by `templatesDir`) are loaded through `vfs`. */
  templates?: TemplateSet;
  templatesDir?: string;
  /** File access for templates; the local file system when omitted. */
  vfs?: Vfs;
  /** Also build from trajectories without evidence of success. */
  includeUnproven?: boolean;
  /** Most questions of one kind per trajectory. Default 3. */
  maxPerTrajectory?: number;
  /** Re-choose MCQ distractors against a cross-fitted options-only discriminator (default true). */
  adversarialFilter?: boolean;
  /** Cap on one observation, in characters, before budgeting (the renderer then trims older observations to fit). Default 32000. */
  observationChars?: number;
  /** Solved in-prompt examples per question. Default 3; 0 for zero-shot. */
  shots?: number;
  /** How plan questions show earlier steps: `plans` (one line each, APTBench) or `thought-action`. Default `plans`. */
  planHistory?: PlanHistory;
  /** Share of trajectories whose questions form the `fewshot` split. Default 0.1 (at most 20 trajectories). */
  fewshotFraction?: number;
  /**
   * Target a length bucket: skip (counted as `<kind>:below-min-tokens`) every question whose
   * prompt, with its whole available history, stays shorter than this many tokens. Default 0.
   */
  minTokens?: number;
  /** Optional model assistance (plan rewriting); off by default. */
  llm?: LlmAssist;
  /**
   * Receives each kind's questions as soon as that kind is built; they are then not kept, and
   * `questions` in the result stays empty. Every task lies within one kind, so a receiver can
   * audit and write them batch by batch, and the build holds one kind's questions at a time
   * instead of the whole set (the largest memory cost of a big build).
   */
  onQuestions?: (questions: Question[]) => void | Promise<void>;
}

export interface BuildResult {
  /** Every question, in order; empty when `onQuestions` received them. */
  questions: Question[];
  /** Questions built (handed over or returned). */
  count: number;
  findings: Finding[];
  /** `kind:reason` (or `trajectory:reason`) → count. */
  skipped: Record<string, number>;
}

export const BUILD_DEFAULTS = {
  seed: '0',
  choices: 4,
  budgetTokens: 32768,
  tokenizer: 'cl100k_base' as TokenizerName,
  maxPerTrajectory: 3,
  observationChars: 32000,
  shots: 3,
  fewshotFraction: 0.1,
  maxFewshotTrajectories: 20,
};
