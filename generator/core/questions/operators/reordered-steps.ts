/**
 * Reordered steps, for choices that are short sequences of plans: the same steps in a
 * different order. Returns null when every reordering equals the original.
 */
export const reorderedSteps = {
  name: 'reordered_steps',
  description: 'the right steps in the wrong order',
  reorder(plans: string[]): string[] | null {
    if (plans.length < 2) return null;
    const out = [...plans].reverse();
    return out.some((p, i) => p !== plans[i]) ? out : null;
  },
} as const;
