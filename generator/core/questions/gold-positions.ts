/** The build's letter stage: gold positions spread evenly per scored split. */
import type { Rng } from '../kernel/rng.js';
import type { QuestionDraft } from './types/index.js';

/**
 * Spreads gold letters evenly within a kind (per choice count): positions cycle through a
 * seeded order of A…K over the questions sorted by id, so counts differ by at most one and
 * "always answer B" scores chance. Distractors keep their relative order.
 */
export function balanceGoldPositions(list: Array<{ id: string; draft: QuestionDraft; split?: string; order?: string }>, rng: Rng): void {
  // Per split: the scored (test) split is balanced on its own, not only the union of splits.
  const groups = new Map<string, Array<{ id: string; draft: QuestionDraft; order?: string }>>();
  for (const e of list) {
    if (!e.draft.mcq) continue;
    const key = `${e.split ?? 'test'}/${String(e.draft.mcq.choices.length).padStart(2, '0')}`;
    const group = groups.get(key);
    if (group) group.push(e);
    else groups.set(key, [e]);
  }
  for (const [key, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const k = group[0]!.draft.mcq!.choices.length;
    const groupRng = rng.fork(key);
    // Each run of k consecutive questions in this order gets every letter once.
    const orderOf = (e: { id: string; order?: string }) => e.order ?? e.id;
    const sorted = group.slice().sort((a, b) => (orderOf(a) < orderOf(b) ? -1 : orderOf(a) > orderOf(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let cycle: number[] = [];
    for (const e of sorted) {
      if (cycle.length === 0) cycle = groupRng.shuffle(Array.from({ length: k }, (_, i) => i));
      const target = cycle.shift()!;
      const mcq = e.draft.mcq!;
      // Kinds give reasons either aligned (`mcq.reasons`) or keyed by option text (`draft.reasons`);
      // reordering must carry whichever exists, and invent none (the generic fallback applies later).
      const keyed = e.draft.reasons;
      const reasons = mcq.reasons ?? (keyed ? mcq.choices.map((c) => keyed[c] ?? '') : undefined);
      const others = mcq.choices.map((c, i) => ({ c, s: mcq.sources[i]!, r: reasons?.[i] ?? '' })).filter((_, i) => i !== mcq.gold);
      others.splice(target, 0, { c: mcq.choices[mcq.gold]!, s: mcq.sources[mcq.gold]!, r: '' });
      e.draft.mcq = { choices: others.map((o) => o.c), sources: others.map((o) => o.s), ...(reasons ? { reasons: others.map((o) => o.r) } : {}), gold: target };
    }
  }
}
