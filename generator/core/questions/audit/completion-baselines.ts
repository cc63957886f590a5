/**
 * Model-free baselines for completion tasks, per task on the scored split: what a string rule
 * that never reads the question's meaning scores under the task's own metric, and how many
 * targets stand in the question at any length (the ceiling of every copy rule). The MCQ
 * baselines compare options; completion questions have none, so these rules produce an answer
 * string and it is scored like a model's. Exact-match metrics are scored (`exact_match`, and
 * the exact-match half of `exact_match+rouge`); a task scored by ROUGE or tool-call match is
 * reported without rules.
 */
import { type Finding, findingFactory } from '../../kernel/findings.js';
import type { CompletionQuestion, Question } from '../types.js';
import { ADVERSARY_MIN_QUESTIONS } from './adversary.js';
import { auditFindings } from './findings.js';
import { wilsonInterval } from './stats.js';
import { collapseWhitespace } from './text.js';

const make = findingFactory(auditFindings);

export type CompletionRule = 'most_frequent_target' | 'last_line' | 'frequent_span';

export const COMPLETION_RULES: readonly CompletionRule[] = ['most_frequent_target', 'last_line', 'frequent_span'];

export interface CompletionBaselines {
  task: string;
  metric: CompletionQuestion['metric'];
  /** Scored (test split) completion questions. */
  questions: number;
  /** Share whose target (any of them, any length) stands in the scored question segment as a whole token. */
  copyable: number;
  /** Exact-match share per rule; empty when the metric has no exact-match part. */
  rules: Partial<Record<CompletionRule, number>>;
}

/** The metrics a string rule is scored with (the rest have no exact-match part). */
const EXACT = new Set<CompletionQuestion['metric']>(['exact_match', 'exact_match+rouge']);

/** How answers are compared: whitespace collapsed, case folded, surrounding quotes and final punctuation dropped. */
export function normaliseAnswer(text: string): string {
  return collapseWhitespace(text)
    .toLowerCase()
    .replace(/^["'`“”‘’《「]+|["'`“”‘’》」.。,，;；:：!?！？]+$/gu, '')
    .trim();
}

/** True when `answer` matches one of the question's targets after `normaliseAnswer`. */
export function exactMatch(q: CompletionQuestion, answer: string): boolean {
  const a = normaliseAnswer(answer);
  return a.length > 0 && q.targets.some((t) => normaliseAnswer(t) === a);
}

/** The scored question segment: the prompt after the shots, without the answer stem. */
export function completionSegment(q: CompletionQuestion): string {
  return q.prompt.slice(q.question_start ?? 0, Math.max(q.question_start ?? 0, q.prompt.length - q.answer_stem.length));
}

const TOKEN_CHAR = /[\p{L}\p{N}_]/u;

/** `needle` in `haystack` with no letter or digit joined to a word character at either end. */
export function standsAsToken(haystack: string, needle: string): boolean {
  if (!needle) return false;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = haystack[at - 1] ?? ' ';
    const after = haystack[at + needle.length] ?? ' ';
    if (!(TOKEN_CHAR.test(before) && TOKEN_CHAR.test(needle[0]!)) && !(TOKEN_CHAR.test(after) && TOKEN_CHAR.test(needle[needle.length - 1]!))) return true;
  }
  return false;
}

/** Some target of the question stands in its scored segment as a whole token, at any length. */
export function targetCopyable(q: CompletionQuestion): boolean {
  const segment = collapseWhitespace(completionSegment(q));
  return q.targets.some((t) => standsAsToken(segment, collapseWhitespace(t)));
}

/** The last non-empty line of the scored segment, without a `label:` prefix. */
function lastLine(q: CompletionQuestion): string {
  const lines = completionSegment(q).split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
  return (lines[lines.length - 1] ?? '').replace(/^[\p{L} ]{1,20}[:：]\s*/u, '');
}

/** Names, numbers and CJK runs: what a short answer usually is. */
const SPAN = /\b[A-Z][\p{L}'’-]+(?:\s+[A-Z][\p{L}'’-]+)*|\b\d[\d.,:/-]*\d\b|\b\d\b|[\u3400-\u9fff·]{2,12}/gu;

/**
 * The name, number or CJK run the segment repeats most often after its head (the goal is read
 * in its first 600 characters and not counted): "the answer is what the pages keep saying".
 */
function frequentSpan(q: CompletionQuestion): string {
  const segment = completionSegment(q);
  const head = segment.slice(0, 600);
  const counts = new Map<string, number>();
  for (const m of segment.slice(600).matchAll(SPAN)) {
    const s = m[0].trim();
    if (head.includes(s)) continue;
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let best = '';
  let bestCount = 0;
  for (const [s, n] of counts) if (n > bestCount || (n === bestCount && s < best)) [best, bestCount] = [s, n];
  return best;
}

/** Each question's most frequent first target among the task's other scored questions (leave-one-out; ties by text). */
function mostFrequentTargets(questions: readonly CompletionQuestion[]): string[] {
  const counts = new Map<string, number>();
  const keys = questions.map((q) => normaliseAnswer(q.targets[0] ?? ''));
  for (const k of keys) if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return keys.map((own) => {
    for (const [k, n] of ranked) if (k !== own || n > 1) return k;
    return '';
  });
}

/** Baselines of each task's scored completion questions, tasks in name order. */
export function completionBaselines(questions: readonly Question[]): CompletionBaselines[] {
  const byTask = new Map<string, CompletionQuestion[]>();
  for (const q of questions) {
    if (q.format !== 'completion' || q.split === 'fewshot') continue;
    byTask.set(q.task, [...(byTask.get(q.task) ?? []), q]);
  }
  const out: CompletionBaselines[] = [];
  for (const task of [...byTask.keys()].sort()) {
    const list = byTask.get(task)!.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const metric = list[0]!.metric;
    const n = list.length;
    const share = (hits: number) => hits / n;
    const rules: Partial<Record<CompletionRule, number>> = {};
    if (EXACT.has(metric)) {
      const frequent = mostFrequentTargets(list);
      rules.most_frequent_target = share(list.filter((q, i) => exactMatch(q, frequent[i]!)).length);
      rules.last_line = share(list.filter((q) => exactMatch(q, lastLine(q))).length);
      rules.frequent_span = share(list.filter((q) => exactMatch(q, frequentSpan(q))).length);
    }
    out.push({ task, metric, questions: n, copyable: share(list.filter(targetCopyable).length), rules });
  }
  return out;
}

/**
 * Judges a task's rules: a rule scoring above `limit` (a share; exact match by chance is near 0)
 * fails the task when it has at least ADVERSARY_MIN_QUESTIONS scored questions and the rule's
 * 95% interval lies wholly above the limit, and warns otherwise.
 */
export function gateCompletionRules(b: CompletionBaselines, limit: number, out: Finding[]): void {
  for (const rule of COMPLETION_RULES) {
    const accuracy = b.rules[rule];
    if (accuracy === undefined || accuracy <= limit) continue;
    const [low, high] = wilsonInterval(accuracy * b.questions, b.questions);
    const significant = b.questions >= ADVERSARY_MIN_QUESTIONS && low > limit;
    const code = significant ? 'audit-completion-rule' : 'audit-completion-rule-not-significant';
    out.push(make(code, {}, { task: b.task, rule, n: b.questions, accuracy, low, high, limit, minQuestions: ADVERSARY_MIN_QUESTIONS }));
  }
}
