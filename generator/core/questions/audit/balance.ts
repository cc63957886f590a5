/**
 * The builder's half of letter balance: reorder choices so gold positions are spread evenly,
 * deterministically. Balancing is planned per (task, choice count) over questions sorted by
 * id, so the input order does not matter and the same set + seed gives the same letters.
 *
 * Run it before the choices are rendered into the prompt (or pass `rerender`), because a
 * prompt that lists options in the old order would no longer match `choices`/`gold`.
 */
import type { Rng } from '../../kernel/rng.js';
import type { McqQuestion, Question } from '../types.js';

export interface BalanceItem {
  id: string;
  task: string;
  choiceCount: number;
}

/**
 * Target gold position per id: within each (task, K) group every letter is gold ⌊n/K⌋ or
 * ⌈n/K⌉ times, the letters that get the extra question are drawn at random (so A and B are
 * not always favoured), and which question gets which letter is shuffled.
 */
export function planBalancedGoldPositions(items: readonly BalanceItem[], rng: Rng): Map<string, number> {
  const groups = new Map<string, BalanceItem[]>();
  for (const item of items) {
    const key = `${item.task}\u0000${item.choiceCount}`;
    const group = groups.get(key) ?? [];
    group.push(item);
    groups.set(key, group);
  }
  const plan = new Map<string, number>();
  for (const key of [...groups.keys()].sort()) {
    const group = groups.get(key)!.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const k = group[0]!.choiceCount;
    const groupRng = rng.fork(`balance/${key}`);
    const positions: number[] = [];
    for (let round = 0; round < Math.floor(group.length / k); round++) for (let p = 0; p < k; p++) positions.push(p);
    positions.push(...groupRng.shuffle(Array.from({ length: k }, (_, p) => p)).slice(0, group.length % k));
    const shuffled = groupRng.shuffle(positions);
    group.forEach((item, i) => plan.set(item.id, shuffled[i]!));
  }
  return plan;
}

/**
 * Moves the gold option to `targetGold` and shuffles the distractors into the other slots.
 * Per-choice metadata (`build.choice_sources`) moves with its choice.
 */
export function permuteChoices(question: McqQuestion, targetGold: number, rng: Rng): McqQuestion {
  const k = question.choices.length;
  if (targetGold < 0 || targetGold >= k) throw new RangeError(`target gold ${targetGold} outside 0..${k - 1}`);
  const distractors = rng.shuffle(question.choices.map((_, i) => i).filter((i) => i !== question.gold));
  const order: number[] = [];
  for (let slot = 0, next = 0; slot < k; slot++) order.push(slot === targetGold ? question.gold : distractors[next++]!);
  const sources = question.build.choice_sources;
  const build = sources && sources.length === k ? { ...question.build, choice_sources: order.map((i) => sources[i]!) } : question.build;
  return { ...question, choices: order.map((i) => question.choices[i]!), gold: targetGold, build };
}

/**
 * Returns the questions in their input order with MCQ choices permuted so that gold letters
 * are balanced per task. Completion questions pass through unchanged. `rerender` is called
 * on every permuted MCQ so a caller whose prompt embeds the option list can rebuild it.
 */
export function balanceLetters<Q extends Question>(questions: readonly Q[], rng: Rng, options: { rerender?: (q: McqQuestion) => McqQuestion } = {}): Q[] {
  const mcqs = questions.filter((q): q is Q & McqQuestion => q.format === 'mcq');
  const plan = planBalancedGoldPositions(
    mcqs.map((q) => ({ id: q.id, task: q.task, choiceCount: q.choices.length })),
    rng,
  );
  return questions.map((q) => {
    if (q.format !== 'mcq') return q;
    const target = plan.get(q.id);
    if (target === undefined) return q;
    const permuted = permuteChoices(q, target, rng.fork(`permute/${q.id}`));
    return (options.rerender ? options.rerender(permuted) : permuted) as Q;
  });
}
