import type { Trajectory } from '../../trajectories/types.js';
import { type Chosen, arrange, pickDistinct, proposeSteps } from '../distractors.js';
import { normaliseChoice } from '../normalise.js';
import type { StepOperatorName } from '../operators/index.js';
import type { StepCandidate } from '../operators/types.js';
import { planOf } from '../plans.js';
import type { QuestionKind } from '../types.js';
import { type KindContext, type QuestionDraft, type SkipReason, chooseAnchors } from './module.js';
import { historyBefore } from '../views.js';

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

/**
 * Drafts of a "pick the next step" kind: one question per chosen anchor among `eligible`
 * step positions, skipping anchors whose choices cannot be built (counted by reason).
 */
export function nextStepDrafts(
  t: Trajectory,
  ctx: KindContext,
  spec: {
    kind: QuestionKind;
    eligible: number[];
    operators: readonly StepOperatorName[];
    render: (c: StepCandidate) => string;
    weights?: Readonly<Record<string, number>>;
    fields: Record<string, unknown>;
    answerStem: string;
  },
): { drafts: QuestionDraft[]; skipped: SkipReason[] } {
  const drafts: QuestionDraft[] = [];
  const skipped: SkipReason[] = [];
  for (const i of chooseAnchors(ctx, spec.eligible)) {
    const mcq = nextStepChoices(t, i, ctx, spec.operators, spec.render, spec.weights);
    if (typeof mcq === 'string') {
      skipped.push(mcq);
      continue;
    }
    drafts.push({
      kind: spec.kind,
      step: i,
      fields: { ...spec.fields },
      history: historyBefore(t, i, ctx.observationChars),
      answerStem: spec.answerStem,
      answerSuffix: ')',
      mcq,
    });
  }
  return { drafts, skipped };
}
