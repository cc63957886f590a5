/**
 * The question audit: per task, is the set answerable only by understanding it? Checks
 * letter balance, duplicates, leaks, identical options and model-free shortcut baselines,
 * each with its count, chance level and a binomial interval so small tasks are not
 * over-read. `auditQuestions` is pure; the CLI and the build both call it.
 */
import { type Finding, findingFactory } from '../../kernel/findings.js';
import { sha256, stableStringify } from '../../kernel/stable-json.js';
import { normaliseChoice } from '../normalise.js';
import type { CompletionQuestion, McqQuestion, Question } from '../types.js';
import { auditFindings } from './findings.js';
import { ADVERSARY_MIN_QUESTIONS, runAdversary, type AdversaryResult } from './adversary.js';
import { completionBaselines, gateCompletionRules, type CompletionBaselines } from './completion-baselines.js';
import { MAX_RULE_SET_MATCH, multiSelectBaselines, multiSelectBaselinesByLanguage, type MultiSelectBaselines, type MultiSelectRule } from './multi-select.js';
import { SHORTCUT_NAMES } from './shortcuts/index.js';
import { detectableExcess, runShortcut } from './gate.js';
import { letterBalance } from './letters.js';
import type { LetterBalance, ShortcutResult, Verdict } from './verdict.js';
import { checkDefects, type DefectCounts } from './defects.js';
import { checkNearDuplicates, type NearDuplicateCounts } from './near-duplicates.js';
import { questionSegment, type SegmentSource, type ToolsSource } from './segment.js';
import { describeCell, smallCells, type SmallCell } from './sample-size.js';
import { collapseWhitespace, letterOf, occurrences } from './text.js';

export { auditFindings } from './findings.js';
export { SHORTCUTS, SHORTCUT_NAMES, GATE_SHORTCUT, type ShortcutName } from './shortcuts/index.js';
export { balanceLetters, planBalancedGoldPositions, permuteChoices } from './balance.js';
export { NULL_SIMULATIONS } from './gate.js';
export type { LetterBalance, ShortcutResult, Verdict } from './verdict.js';
export type { AdversaryCell, AdversaryResult } from './adversary.js';
export type { SmallCell } from './sample-size.js';

const make = findingFactory(auditFindings);

/** Default `--max-shortcut-gain`: points above chance a shortcut rule may reach before it fails. */
export const DEFAULT_MAX_SHORTCUT_GAIN = 10;

export interface AuditOptions {
  /** Allowed deviation of gold-letter shares from their expectation, in percentage points (default 5). */
  tolerancePoints?: number;
  /**
   * Points above chance (below, for two-sided rules) a shortcut rule may reach; beyond it a
   * significant result fails and a non-significant one warns (default 10). The combined rule is
   * the build gate; the single rules are judged against the same limit.
   */
  maxShortcutGain?: number;
  /** Significance level a deviation must reach before it fails the audit (default 0.05). */
  alpha?: number;
  /** Golds/targets shorter than this (after collapsing whitespace) are not leak-checked: `ls` in a trajectory is not a leak. */
  minLeakChars?: number;
  /** The file record of each question, when auditing part of a file (findings name file records); default its position. */
  records?: readonly number[];
  /**
   * false: the shortcut rules, letters and defects only, without the learned adversary (each
   * task's `adversary` is then null). For callers that read only the rules; `aptpace audit` and
   * the build's gate always run it. Default true.
   */
  learnedAdversary?: boolean;
}

export interface TaskAudit {
  task: string;
  questions: number;
  mcq: number;
  completion: number;
  /** Questions in the few-shot split: checked individually, left out of letter and shortcut statistics. */
  fewshot: number;
  /** How many MCQs have each number of choices. */
  choiceCounts: Record<string, number>;
  chance: number | null;
  letters: LetterBalance | null;
  shortcuts: ShortcutResult[];
  /** The cross-fitted learned adversary, for the whole task and per language; null without two source groups. */
  adversary: AdversaryResult | null;
  /** String rules on the task's scored completion questions, scored by exact match; null without any. */
  completionRules: CompletionBaselines | null;
  /** Model-free rules on the task's scored multi-select questions (set match, F1); null without any. */
  multiSelect: MultiSelectBaselines | null;
  /** The multi-select baselines of each language, when the task has more than one. */
  multiSelectLanguages: MultiSelectBaselines[];
  /**
   * Smallest excess over chance (points) a shortcut needs to reach significance at this size;
   * null when the task has no MCQ or is so small that not even a perfect score would be significant.
   */
  detectablePoints: number | null;
  /**
   * Languages (per format) with fewer scored questions than the gates need: the audit does not
   * vouch for them and the task is WARN at best (audit-too-few-to-judge); empty when none.
   */
  smallCells: SmallCell[];
  duplicates: number;
  duplicatePrompts: number;
  /** Same (trajectory prefix, gold) asked more than once. */
  nearDuplicates: NearDuplicateCounts;
  /** Deterministic defects (copied options, tools not offered). */
  defects: DefectCounts;
  /** Scored MCQs by how their question segment was found: recorded (`field`) or derived from the prompt. */
  segmentSources: Record<SegmentSource, number>;
  /** Scored MCQs by where their offered tool set came from: recorded, a `Tool set:` list in the prompt, or unknown. */
  toolsSources: Record<ToolsSource, number>;
  /** MCQs whose gold is in the context alone (errors). */
  leaks: number;
  /** MCQs whose gold is in the context along with a distractor (warning, listed once per task). */
  goldInContext: number;
  /** Completions whose first target is in the prompt (warning, listed once per task). */
  targetsInPrompt: number;
  /**
   * Exact-match completions whose first target is shorter than the leak-check length yet stands
   * in the scored question segment as a whole token ("G8III", "1900.2.10"): copyable at any length.
   */
  shortTargetsInPrompt: number;
  identicalChoices: number;
  invalid: number;
  verdict: Verdict;
}

export interface AuditReport {
  tolerancePoints: number;
  maxShortcutGain: number;
  alpha: number;
  questions: number;
  tasks: TaskAudit[];
  verdict: Verdict;
}

export function auditQuestions(questions: Question[], options: AuditOptions = {}): { findings: Finding[]; report: AuditReport } {
  const tolerancePoints = options.tolerancePoints ?? 5;
  const maxShortcutGain = options.maxShortcutGain ?? DEFAULT_MAX_SHORTCUT_GAIN;
  const alpha = options.alpha ?? 0.05;
  const minLeakChars = options.minLeakChars ?? 12;
  const findings: Finding[] = [];

  const indexOf = new Map<Question, number>();
  questions.forEach((q, i) => indexOf.set(q, options.records?.[i] ?? i));

  const idCounts = new Map<string, number>();
  for (const q of questions) idCounts.set(q.id, (idCounts.get(q.id) ?? 0) + 1);
  for (const [id, count] of [...idCounts].sort(([a], [b]) => a.localeCompare(b))) {
    if (count > 1) findings.push(make('audit-duplicate-id', { record: indexOf.get(questions.find((q) => q.id === id)!)!, field: 'id' }, { id, count }));
  }

  const byTask = new Map<string, Question[]>();
  for (const q of questions) {
    const list = byTask.get(q.task) ?? [];
    list.push(q);
    byTask.set(q.task, list);
  }

  const tasks: TaskAudit[] = [];
  for (const task of [...byTask.keys()].sort()) {
    const taskQuestions = byTask.get(task)!;
    const taskFindings: Finding[] = [];
    const at = (q: Question, field?: string) => ({ record: indexOf.get(q)!, ...(field ? { field } : {}) });

    const { duplicates, duplicatePrompts } = checkDuplicates(task, taskQuestions, at, taskFindings);
    const nearDuplicates = checkNearDuplicates(task, taskQuestions, taskFindings);

    // Statistics describe what the harness scores: the test split. Few-shot questions are still
    // checked one by one, and a few-shot question equal to a test question is a duplicate.
    const valid: McqQuestion[] = [];
    // Soft leaks are common and often legitimate; one finding per task lists them.
    const softLeaks = { goldInContext: [] as string[], targetInPrompt: [] as string[], shortTargetInPrompt: [] as string[] };
    let invalid = 0;
    let identicalChoices = 0;
    let leaks = 0;
    for (const q of taskQuestions) {
      if (q.format === 'mcq') {
        const problem = mcqProblem(q);
        if (problem) {
          invalid++;
          taskFindings.push(make('audit-invalid-mcq', at(q), { task, id: q.id, reason: problem }));
          continue;
        }
        if (q.split !== 'fewshot') valid.push(q);
        identicalChoices += checkIdenticalChoices(task, q, at, taskFindings);
        leaks += checkGoldLeak(task, q, minLeakChars, at, taskFindings, softLeaks.goldInContext);
      } else if (q.format === 'completion') {
        if (targetInPrompt(q, minLeakChars)) softLeaks.targetInPrompt.push(q.id);
        else if (q.split !== 'fewshot' && shortTargetInPrompt(q, minLeakChars)) softLeaks.shortTargetInPrompt.push(q.id);
      }
    }

    // Baselines see the task in id order, so sums (and the report's bytes) do not depend on input order.
    valid.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : indexOf.get(a)! - indexOf.get(b)!));
    const mcqCount = taskQuestions.filter((q) => q.format === 'mcq').length;
    const completionCount = taskQuestions.length - mcqCount;
    if (softLeaks.goldInContext.length) {
      const ids = softLeaks.goldInContext.sort();
      taskFindings.push(make('audit-gold-in-context', {}, { task, count: ids.length, total: mcqCount, ids }));
    }
    if (softLeaks.shortTargetInPrompt.length) {
      const ids = softLeaks.shortTargetInPrompt.sort();
      taskFindings.push(make('audit-short-target-in-prompt', {}, { task, count: ids.length, total: completionCount, ids, minChars: minLeakChars }));
    }
    if (softLeaks.targetInPrompt.length) {
      const ids = softLeaks.targetInPrompt.sort();
      taskFindings.push(make('audit-target-in-prompt', {}, { task, count: ids.length, total: completionCount, ids }));
    }
    const defects = checkDefects(task, valid, taskFindings);
    const segmentSources: Record<SegmentSource, number> = { field: 0, 'after-shots': 0, 'whole-prompt': 0 };
    const toolsSources: Record<ToolsSource, number> = { field: 0, 'tool-list': 0, none: 0 };
    for (const q of valid) {
      const segment = questionSegment(q);
      segmentSources[segment.source]++;
      toolsSources[segment.toolsSource]++;
    }
    const chance = valid.length ? mean(valid.map((q) => 1 / q.choices.length)) : null;
    const letters = valid.length ? letterBalance(task, valid, tolerancePoints, alpha, taskFindings) : null;
    const shortcuts = valid.length ? SHORTCUT_NAMES.map((name) => runShortcut(task, name, valid, maxShortcutGain, alpha, taskFindings)) : [];
    const adversary = valid.length && options.learnedAdversary !== false ? runAdversary(task, valid, maxShortcutGain, taskFindings, alpha) : null;
    const detectablePoints = valid.length ? detectableExcess(valid, alpha) : null;
    if (valid.length && (detectablePoints === null || detectablePoints > maxShortcutGain)) {
      taskFindings.push(make('audit-low-power', {}, { task, n: valid.length, detectablePoints }));
    }

    const multiSelect = multiSelectBaselines(taskQuestions)[0] ?? null;
    const multiSelectLanguages = multiSelect ? multiSelectBaselinesByLanguage(taskQuestions) : [];
    for (const baselines of multiSelect ? [multiSelect, ...multiSelectLanguages] : []) {
      for (const [rule, score] of Object.entries(baselines.rules) as Array<[MultiSelectRule, { setMatch: number }]>) {
        if (score.setMatch <= MAX_RULE_SET_MATCH) continue;
        const code = baselines.questions >= ADVERSARY_MIN_QUESTIONS ? 'audit-multi-select-rule' : 'audit-multi-select-rule-small';
        const where = baselines.language ? { language: baselines.language } : {};
        taskFindings.push(make(code, {}, { task, ...where, rule, n: baselines.questions, setMatch: score.setMatch, chance: baselines.chanceSetMatch, limit: MAX_RULE_SET_MATCH }));
      }
    }

    const completionRules = completionBaselines(taskQuestions)[0] ?? null;
    if (completionRules) gateCompletionRules(completionRules, maxShortcutGain / 100, taskFindings);

    const small = smallCells(taskQuestions, valid);
    if (small.length) taskFindings.push(make('audit-too-few-to-judge', {}, { task, cells: small.map(describeCell), minQuestions: ADVERSARY_MIN_QUESTIONS }));

    const choiceCounts: Record<string, number> = {};
    for (const q of valid) choiceCounts[String(q.choices.length)] = (choiceCounts[String(q.choices.length)] ?? 0) + 1;

    findings.push(...taskFindings);
    tasks.push({
      task,
      questions: taskQuestions.length,
      mcq: mcqCount,
      completion: completionCount,
      fewshot: taskQuestions.filter((q) => q.split === 'fewshot').length,
      goldInContext: softLeaks.goldInContext.length,
      targetsInPrompt: softLeaks.targetInPrompt.length,
      shortTargetsInPrompt: softLeaks.shortTargetInPrompt.length,
      choiceCounts,
      chance,
      letters,
      shortcuts,
      adversary,
      completionRules,
      multiSelect,
      multiSelectLanguages,
      detectablePoints,
      smallCells: small,
      duplicates,
      duplicatePrompts,
      nearDuplicates,
      defects,
      segmentSources,
      toolsSources,
      leaks,
      identicalChoices,
      invalid,
      verdict: verdictOf(taskFindings),
    });
  }

  return {
    findings,
    report: { tolerancePoints, maxShortcutGain, alpha, questions: questions.length, tasks, verdict: verdictOf(findings) },
  };
}

/**
 * One report from the reports of parts that share no task (a build audits each task of a kind as
 * soon as the kind is built): tasks in name order, counts summed, the worst verdict.
 */
export function mergeAuditReports(parts: readonly AuditReport[]): AuditReport | null {
  if (parts.length === 0) return null;
  const rank: Record<Verdict, number> = { pass: 0, warn: 1, fail: 2 };
  const tasks = parts.flatMap((p) => p.tasks).sort((a, b) => (a.task < b.task ? -1 : a.task > b.task ? 1 : 0));
  const verdict = parts.map((p) => p.verdict).reduce((a, b) => (rank[b] > rank[a] ? b : a), 'pass' as Verdict);
  const { tolerancePoints, maxShortcutGain, alpha } = parts[0]!;
  return { tolerancePoints, maxShortcutGain, alpha, questions: parts.reduce((n, p) => n + p.questions, 0), tasks, verdict };
}

function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'error')) return 'fail';
  if (findings.some((f) => f.severity === 'warning')) return 'warn';
  return 'pass';
}

function mean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

function mcqProblem(q: McqQuestion): string | undefined {
  if (!Array.isArray(q.choices) || q.choices.length < 2) return 'fewer than two choices';
  if (!Number.isInteger(q.gold) || q.gold < 0 || q.gold >= q.choices.length) return `gold ${q.gold} is not a choice index`;
  return undefined;
}

type At = (q: Question, field?: string) => { record: number; field?: string };

function answerKey(q: Question): unknown {
  return q.format === 'mcq'
    ? { gold: normaliseChoice(q.choices[q.gold] ?? ''), options: q.choices.map(normaliseChoice).sort() }
    : { targets: q.targets.map(collapseWhitespace) };
}

function checkDuplicates(task: string, questions: Question[], at: At, out: Finding[]): { duplicates: number; duplicatePrompts: number } {
  const byPrompt = new Map<string, Question>();
  const byContent = new Map<string, Question>();
  let duplicates = 0;
  let duplicatePrompts = 0;
  for (const q of questions) {
    // Keyed by digest: a kind's prompts run to hundreds of MB, and keys holding them would double that.
    const promptKey = sha256(`${q.format}\u0000${collapseWhitespace(q.prompt)}\u0000${collapseWhitespace(q.answer_stem)}`);
    const contentKey = `${promptKey}\u0000${stableStringify(answerKey(q))}`;
    const sameContent = byContent.get(contentKey);
    if (sameContent) {
      duplicates++;
      out.push(make('audit-duplicate-question', at(q), { task, id: q.id, firstId: sameContent.id }));
      continue;
    }
    byContent.set(contentKey, q);
    const samePrompt = byPrompt.get(promptKey);
    if (samePrompt) {
      duplicatePrompts++;
      out.push(make('audit-duplicate-prompt', at(q, 'prompt'), { task, id: q.id, firstId: samePrompt.id }));
    } else byPrompt.set(promptKey, q);
  }
  return { duplicates, duplicatePrompts };
}

function checkIdenticalChoices(task: string, q: McqQuestion, at: At, out: Finding[]): number {
  const seen = new Map<string, number>();
  let count = 0;
  q.choices.forEach((choice, i) => {
    const key = normaliseChoice(choice);
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, i);
      return;
    }
    count++;
    if (first === q.gold || i === q.gold) {
      const distractor = first === q.gold ? i : first;
      out.push(make('audit-distractor-equals-gold', at(q, `choices[${distractor}]`), { task, id: q.id, distractor: letterOf(distractor), gold: letterOf(q.gold) }));
    } else {
      out.push(make('audit-duplicate-distractors', at(q, `choices[${i}]`), { task, id: q.id, first: letterOf(first), second: letterOf(i) }));
    }
  });
  return count;
}

function checkGoldLeak(task: string, q: McqQuestion, minChars: number, at: At, out: Finding[], soft: string[]): number {
  const gold = collapseWhitespace(q.choices[q.gold]!);
  if (gold.length < minChars) return 0;
  const context = questionSegment(q).context;
  if (occurrences(context, gold) === 0) return 0;
  const distractorsInContext = q.choices.filter((c, i) => i !== q.gold && collapseWhitespace(c).length > 0 && context.includes(collapseWhitespace(c))).length;
  if (distractorsInContext > 0) {
    soft.push(q.id);
    return 0;
  }
  out.push(make('audit-gold-leaked', at(q, 'prompt'), { task, id: q.id, letter: letterOf(q.gold) }));
  return 1;
}

function targetInPrompt(q: CompletionQuestion, minChars: number): boolean {
  const target = collapseWhitespace(q.targets[0] ?? '');
  return target.length >= minChars && collapseWhitespace(q.prompt).includes(target);
}

const TOKEN_CHAR = /[\p{L}\p{N}_]/u;

/** An exact-match target under `minChars` found in the scored segment with no letter or digit joined to either end. */
function shortTargetInPrompt(q: CompletionQuestion, minChars: number): boolean {
  if (q.metric !== 'exact_match' && q.metric !== 'exact_match+rouge') return false;
  const target = collapseWhitespace(q.targets[0] ?? '');
  if (target.length === 0 || target.length >= minChars) return false;
  const segment = collapseWhitespace(q.prompt.slice(q.question_start ?? 0, q.prompt.length - q.answer_stem.length));
  for (let at = segment.indexOf(target); at >= 0; at = segment.indexOf(target, at + 1)) {
    const before = segment[at - 1] ?? ' ';
    const after = segment[at + target.length] ?? ' ';
    if (!(TOKEN_CHAR.test(before) && TOKEN_CHAR.test(target[0]!)) && !(TOKEN_CHAR.test(after) && TOKEN_CHAR.test(target[target.length - 1]!))) return true;
  }
  return false;
}
