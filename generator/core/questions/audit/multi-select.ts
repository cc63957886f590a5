/**
 * Model-free baselines for multi-select tasks (dr_citation_ms), per task on the scored split:
 * what set match and F1 a rule gets without reading the prompt, beside chance. The MCQ
 * baselines of the audit do not apply to multi-select; this is their counterpart, and the
 * audit gates on it (`multiSelectGate`).
 */
import type { MultiSelectQuestion, Question } from '../types.js';

export type MultiSelectRule = 'select_all' | 'first_only' | 'last_only' | 'answer_mention' | 'shared_phrase' | 'question_overlap';

export interface RuleScore {
  setMatch: number;
  f1: number;
}

export interface MultiSelectBaselines {
  task: string;
  /** Set when the figures are for one language's questions of the task only. */
  language?: string;
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
  shared_phrase: sharedPhrase,
  question_overlap: questionOverlap,
};

const FINAL_ANSWER = /^(?:Final answer|最终答案)\s*[:：]\s*(.+)$/m;
const OBSERVATION_HEAD = /^(?:Observation|观察)\s*(\d+)\b/gm;

/**
 * The string rule: mark every numbered observation of the scored question whose shown text
 * contains the final answer the prompt states (case, width, punctuation and spacing ignored).
 * Reads only the prompt: no understanding of what supports what.
 */
function answerMention(q: MultiSelectQuestion): number[] {
  const { answer, bodies, numbers } = parseCitation(q);
  const key = answer ? loose(answer) : '';
  if (!key) return [];
  const picked = new Set<number>();
  bodies.forEach((body, i) => {
    const n = numbers[i]!;
    if (n >= 0 && n < q.choices.length && loose(body).includes(key)) picked.add(n);
  });
  return [...picked].sort((a, b) => a - b);
}

const QUESTION_LINE = /^(?:Question|问题)\s*[:：]\s*(.+)$/m;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The scored question as the prompt shows it: the question line, a stated final answer (if
 * any), and each numbered observation's body with its 0-based number from the heading.
 */
function parseCitation(q: MultiSelectQuestion): { question: string; answer: string | undefined; bodies: string[]; numbers: number[] } {
  const segment = q.prompt.slice(q.question_start ?? 0);
  const question = QUESTION_LINE.exec(segment)?.[1] ?? '';
  const answer = FINAL_ANSWER.exec(segment)?.[1];
  const heads = [...segment.matchAll(OBSERVATION_HEAD)];
  const bodies = heads.map((m, i) => {
    const body = segment.slice(m.index, i + 1 < heads.length ? heads[i + 1]!.index : segment.length);
    return body.slice(body.indexOf('\n') + 1);
  });
  return { question, answer, bodies, numbers: heads.map((m) => Number(m[1]) - 1) };
}

/** Words of `text`, case and width folded; each CJK character is a word of its own. */
function words(text: string): string[] {
  const out: string[] = [];
  for (const w of loose(text).split(' ')) {
    if (!w) continue;
    if (CJK.test(w)) out.push(...w.split(/(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])/u));
    else out.push(w);
  }
  return out;
}

/**
 * The answer guessed without reading: the phrase of one to three words, none of them in the
 * question, that the most observations share (not all: a phrase every observation shows is
 * boilerplate), longer phrases counting more; marks the observations that show it. An answer
 * the prompt does not state tends to be what the collected pages repeat.
 */
function sharedPhrase(q: MultiSelectQuestion): number[] {
  const { question, bodies } = parseCitation(q);
  const asked = new Set(words(question));
  const phrasesOf = bodies.map((body) => {
    const w = words(body);
    const phrases = new Set<string>();
    for (let n = 1; n <= 3; n++) {
      for (let i = 0; i + n <= w.length; i++) {
        const gram = w.slice(i, i + n);
        if (gram.some((x) => asked.has(x))) continue;
        if (n === 1 && gram[0]!.length < 3 && !/^\p{N}+$/u.test(gram[0]!) && !CJK.test(gram[0]!)) continue;
        phrases.add(gram.join(' '));
      }
    }
    return phrases;
  });
  const count = new Map<string, number>();
  for (const phrases of phrasesOf) for (const p of phrases) count.set(p, (count.get(p) ?? 0) + 1);
  let best: string | null = null;
  let bestKey: [number, number] = [0, 0];
  for (const [phrase, c] of count) {
    if (c < 2 || c >= bodies.length) continue;
    const len = phrase.split(' ').length;
    const key: [number, number] = [c * len, len];
    const better = key[0] > bestKey[0] || (key[0] === bestKey[0] && (key[1] > bestKey[1] || (key[1] === bestKey[1] && best !== null && phrase < best)));
    if (best === null || better) {
      best = phrase;
      bestKey = key;
    }
  }
  if (best === null) return [];
  return phrasesOf.flatMap((phrases, i) => (phrases.has(best!) && i < q.choices.length ? [i] : []));
}

/** The one observation that shows the largest share of the question's words. */
function questionOverlap(q: MultiSelectQuestion): number[] {
  const { question, bodies } = parseCitation(q);
  const asked = new Set(words(question));
  if (asked.size === 0 || bodies.length === 0) return [];
  let best = 0;
  let bestShare = -1;
  bodies.forEach((body, i) => {
    const shown = new Set(words(body));
    let hit = 0;
    for (const w of asked) if (shown.has(w)) hit++;
    if (hit / asked.size > bestShare) {
      best = i;
      bestShare = hit / asked.size;
    }
  });
  return best < q.choices.length ? [best] : [];
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

/**
 * The same baselines for each language of a task that has more than one: a cue can live in one
 * language only (in Chinese runs the observation sharing most of the question's characters is
 * more often the answer), and pooling would hide it.
 */
export function multiSelectBaselinesByLanguage(questions: readonly Question[]): MultiSelectBaselines[] {
  const byLanguage = new Map<string, Question[]>();
  for (const q of questions) {
    const language = q.language ?? 'en';
    const list = byLanguage.get(language);
    if (list) list.push(q);
    else byLanguage.set(language, [q]);
  }
  if (byLanguage.size < 2) return [];
  return [...byLanguage]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([language, qs]) => multiSelectBaselines(qs).map((b) => ({ ...b, language })));
}

/** Most set match a model-free rule may reach on a multi-select task before the audit fails it. */
export const MAX_RULE_SET_MATCH = 0.5;
