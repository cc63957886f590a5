/**
 * Model-free baselines for multi-select tasks (dr_citation_ms), per task on the scored split:
 * what set match and F1 a rule gets without reading the prompt, beside chance. The MCQ
 * baselines of the audit do not apply to multi-select; this is their counterpart, to be
 * wired into the audit report with the audit rewrite.
 */
import type { MultiSelectQuestion, Question } from '../types.js';

export type MultiSelectRule = 'select_all' | 'first_only' | 'last_only';

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

const RULES: Record<MultiSelectRule, (k: number) => number[]> = {
  select_all: (k) => Array.from({ length: k }, (_, i) => i),
  first_only: () => [0],
  last_only: (k) => [k - 1],
};

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
      for (const [name, rule] of Object.entries(RULES) as Array<[MultiSelectRule, (k: number) => number[]]>) {
        let match = 0;
        let f1 = 0;
        for (const q of qs) {
          const predicted = new Set(rule(q.choices.length));
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
