import type { StepOperatorName } from '../operators/index.js';
import { pyJson } from '../pyjson.js';
import { intentOf } from '../plans.js';
import { nextStepDrafts } from './step-mcq.js';
import type { QuestionTypeModule } from './module.js';

// No `wrong_tool`: a misspelled tool is eliminable by checking the offered tool list.
const OPERATORS: StepOperatorName[] = ['off_target_argument', 'premature_submit', 'other_position', 'borrowed_step'];
/**
 * Operator weights. APTBench's released deep-research distractors are ~75% off-target queries,
 * but weighting off_target_argument 2–3× made the audit's longest-option and context-overlap
 * baselines significantly *below* chance on the 120 real trajectories (the gold became
 * recognisable as the option least like the others), so operators stay equally weighted.
 */
const WEIGHTS: Record<string, number> = {};

/**
 * A step as APTBench's deep-research choices show it: `{"planning": …, "execution": {"name": …, "args": …}}`,
 * with Python's `json.dumps` spacing and non-ASCII text kept as is (as in the released rows).
 */
export function drStepJson(c: { plan: string; action: { tool: string | null; args: Record<string, unknown> } }): string {
  return pyJson({ planning: c.plan, execution: { name: c.action.tool ?? 'action', args: c.action.args } });
}

/** Deep research, next step: pick the correct, most reasonable next step (planning + execution). */
export const drPlanMcq: QuestionTypeModule = {
  kind: 'dr_plan_mcq',
  format: 'mcq',
  domains: ['deep_research'],
  template: 'dr_plan_mcq',
  pairsFinishes: true,
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    if (t.steps.length < 2) return { drafts: [], skipped: ['too-short'] };
    const candidates = t.steps.map((_, i) => i).filter((i) => i >= 1);
    const eligible = candidates.filter((i) => intentOf(t.steps[i]!) !== null);
    const noIntent = candidates.filter((i) => intentOf(t.steps[i]!) === null).map(() => 'no-intent' as const);
    const result = nextStepDrafts(t, ctx, {
      kind: 'dr_plan_mcq',
      eligible,
      needsIntent: true,
      showTools: true,
      operators: OPERATORS,
      render: drStepJson,
      weights: WEIGHTS,
      sameSlot: true,
      callShown: true,
      fields: { goal: t.task.goal },
      answerStem: 'The correct next step should be (',
    });
    return { drafts: result.drafts, skipped: [...noIntent, ...result.skipped] };
  },
};
