/**
 * Model-free baselines for multi-select tasks (dr_citation_ms), per task on the scored split:
 * what set match and F1 a rule gets without reading the prompt, beside chance. The MCQ
 * baselines of the audit do not apply to multi-select; this is their counterpart, and the
 * audit gates on it (`multiSelectGate`).
 */
import type { MultiSelectQuestion, Question } from '../types.js';

export type MultiSelectRule = 'select_all' | 'first_only' | 'last_only' | 'answer_mention';

export interface RuleScore {
  setMatch: number;
  f1: number;
}

export interface MultiSelectBaselines {
  task: string;
  questions: number;
  /** Expected set match of a uniformly random non-empty subset: mean of 1 / (2^k − 1). */
  chanceSetMatch: number;
  rules: Record<MultiSelectRule, RuleScore>;
}

export function setF1(predicted: ReadonlySet<number>, gold: ReadonlySet<number>): number {
  if (predicted.size === 0 || gold.size === 0) return 0;
  let overlap = 0;
  for (const p of predicted) if (gold.has(p)) overlap++;
  return (2 * overlap) / (predicted.size + gold.size);
}

const RULES: Record<MultiSelectRule, (q: MultiSelectQuestion) => number[]> = {
  select_all: (q) => q.choices.map((_, i) => i),
  first_only: () => [0],
  last_only: (q) => [q.choices.length - 1],
  answer_mention: answerMention,
};

const FINAL_ANSWER = /^(?:Final answer|最终答案)\s*[:：]\s*(.+)$/m;
const OBSERVATION_HEAD = /^(?:Observation|观察)\s*(\d+)\b/gm;

/**
 * The string rule: mark every numbered observation of the scored question whose shown text
 * contains the final answer the prompt states (case, width, punctuation and spacing ignored).
 * Reads only the prompt: no understanding of what supports what.
 */
function answerMention(q: MultiSelectQuestion): number[] {
  const segment = q.prompt.slice(q.question_start ?? 0);
  const answer = FINAL_ANSWER.exec(segment)?.[1];
  if (!answer) return [];
  const key = loose(answer);
  if (!key) return [];
  const heads = [...segment.matchAll(OBSERVATION_HEAD)];
  const picked = new Set<number>();
  heads.forEach((m, i) => {
    const end = i + 1 < heads.length ? heads[i + 1]!.index : segment.length;
    const body = segment.slice(m.index, end);
    const n = Number(m[1]) - 1;
    if (n >= 0 && n < q.choices.length && loose(body.slice(body.indexOf('\n') + 1)).includes(key)) picked.add(n);
  });
  return [...picked].sort((a, b) => a - b);
}

function loose(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

export function multiSelectBaselines(questions: readonly Question[]): MultiSelectBaselines[] {
  const byTask = new Map<string, MultiSelectQuestion[]>();
  for (const q of questions) {
    if (q.format !== 'multi_select' || q.split === 'fewshot') continue;
    const list = byTask.get(q.task);
    if (list) list.push(q);
    else byTask.set(q.task, [q]);
  }
  return [...byTask]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([task, qs]) => {
      const rules = {} as Record<MultiSelectRule, RuleScore>;
      for (const [name, rule] of Object.entries(RULES) as Array<[MultiSelectRule, (q: MultiSelectQuestion) => number[]]>) {
        let match = 0;
        let f1 = 0;
        for (const q of qs) {
          const predicted = new Set(rule(q));
          const gold = new Set(q.golds);
          if (predicted.size === gold.size && [...predicted].every((p) => gold.has(p))) match++;
          f1 += setF1(predicted, gold);
        }
        rules[name] = { setMatch: match / qs.length, f1: f1 / qs.length };
      }
      const chance = qs.reduce((s, q) => s + 1 / (2 ** q.choices.length - 1), 0) / qs.length;
      return { task, questions: qs.length, chanceSetMatch: chance, rules };
    });
}

/** Most set match a model-free rule may reach on a multi-select task before the audit fails it. */
export const MAX_RULE_SET_MATCH = 0.5;
