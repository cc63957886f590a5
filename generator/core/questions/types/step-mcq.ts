import type { Trajectory } from '../../trajectories/types.js';
import { type Chosen, arrange, pickDistinct, proposeSteps } from '../distractors.js';
import { normaliseChoice } from '../normalise.js';
import type { StepOperatorName } from '../operators/index.js';
import type { StepCandidate } from '../operators/types.js';
import { planOf } from '../plans.js';
import type { KindContext } from './module.js';

/**
 * Shared machinery of the "pick the next step" kinds: the gold is step `position`, the
 * distractors come from step operators, and `render` turns a candidate into choice text.
 */
export function nextStepChoices(
  t: Trajectory,
  position: number,
  ctx: KindContext,
  operators: readonly StepOperatorName[],
  render: (c: StepCandidate) => string,
  weights: Readonly<Record<string, number>> = {},
): { choices: string[]; gold: number; sources: string[] } | 'too-few-distractors' | 'repeated-step' {
  const step = t.steps[position]!;
  const gold: StepCandidate = { plan: planOf(step), planGiven: Boolean(step.plan), action: step.action };
  const goldKey = normaliseChoice(render(gold));
  // A step that repeats an earlier one is in the prompt already: the gold could be copied.
  for (let j = 0; j < position; j++) {
    const s = t.steps[j]!;
    if (normaliseChoice(render({ plan: planOf(s), planGiven: Boolean(s.plan), action: s.action })) === goldKey) return 'repeated-step';
  }
  const rng = ctx.rng.fork(`step${position}`);
  const proposals = proposeSteps({ rng, trajectory: t, position, gold, corpus: ctx.corpus }, operators);
  const goldText = render(gold);
  // The step right after the gold may be an equally valid next step (e.g. two independent reads).
  const excluded = new Set<string>();
  const following = t.steps[position + 1];
  if (following) excluded.add(normaliseChoice(render({ plan: planOf(following), planGiven: Boolean(following.plan), action: following.action })));
  const picked = pickDistinct(
    rng.fork('pick'),
    proposals.map((p) => ({ operator: p.operator, values: p.values.map(render) })),
    normaliseChoice,
    normaliseChoice(goldText),
    excluded,
    ctx.choices - 1,
    weights,
  );
  if (picked.length < ctx.choices - 1) return 'too-few-distractors';
  return arrange(rng.fork('arrange'), goldText, picked as Array<Chosen<string>>);
}
