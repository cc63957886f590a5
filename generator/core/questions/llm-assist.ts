import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import type { Trajectory } from '../trajectories/types.js';
import { questionFindings } from './findings.js';
import { normaliseChoice } from './normalise.js';
import { oneLine } from './plans.js';
import type { QuestionDraft } from './types/module.js';

const make = findingFactory(questionFindings);

/** The first non-empty line of a reply: servers that ignore `stop` keep talking. */
function firstLine(reply: string, max?: number): string {
  return oneLine(reply.split('\n').find((l) => l.trim()) ?? '', max);
}

/** The part of an OpenAI-compatible client the builder uses (see core/llm). */
export interface LlmAssist {
  model: string;
  complete(prompt: string, opts?: { maxTokens?: number; temperature?: number; stop?: string[] }): Promise<string>;
}

/** Kinds whose choices are plans, the only ones a rewrite applies to. */
const PLAN_KINDS = new Set(['plan_mcq', 'env_setup_plan_mcq']);

function rewritePrompt(plan: string): string {
  return [
    'Rewrite each step description as one short sentence in the first person, starting with "I need to". Keep every file name, identifier and value unchanged.',
    '',
    'Step: Open src/app/config.py to inspect its contents.',
    'Rewritten: I need to open src/app/config.py and look at how the configuration is loaded.',
    '',
    'Step: Run `python reproduce.py`.',
    'Rewritten: I need to run python reproduce.py to see whether the error still occurs.',
    '',
    `Step: ${plan}`,
    'Rewritten:',
  ].join('\n');
}

/**
 * Rewrites every choice of a plan question through the model, all in the same voice so the
 * gold does not stand out. A failed or empty reply keeps the deterministic plans (and says so);
 * a rewrite that makes two choices identical is rejected for the same reason.
 */
export async function rewritePlans(draft: QuestionDraft, llm: LlmAssist, t: Trajectory, findings: Finding[]): Promise<void> {
  if (!draft.mcq || !PLAN_KINDS.has(draft.kind)) return;
  try {
    const rewritten: string[] = [];
    for (const choice of draft.mcq.choices) {
      const reply = await llm.complete(rewritePrompt(choice), { maxTokens: 80, temperature: 0, stop: ['\n'] });
      const line = firstLine(reply);
      if (!line) throw new Error('empty reply');
      rewritten.push(line);
    }
    if (new Set(rewritten.map((r) => r.toLowerCase())).size !== rewritten.length) throw new Error('rewrites are not distinct');
    draft.mcq.choices = rewritten;
  } catch (err) {
    findings.push(make('build-llm-failed', {}, { purpose: 'plan rewriting', traj_id: t.traj_id, reason: (err as Error).message }));
  }
}

/** Kinds whose distractors are single next steps a model can perturb. */
const STEP_KINDS = new Set(['plan_mcq', 'next_action_mcq', 'dr_plan_mcq']);

function perturbPrompt(goal: string, gold: string, kind: string): string {
  const what = kind === 'plan_mcq' ? 'plan' : kind === 'dr_plan_mcq' ? 'step (keep the same JSON format)' : 'command';
  return [
    `Write a plausible but wrong next ${what} for an agent solving the task below. It must look like a real next ${what} and be wrong in one specific way: a wrong file, a wrong argument, a wrong tool, or a step that is premature or unnecessary. Write only the ${what}, on one line.`,
    '',
    `Task: ${oneLine(goal, 600)}`,
    `Correct next ${what}: ${gold}`,
    `Wrong next ${what}:`,
  ].join('\n');
}

/**
 * Model-based perturbation: asks the model for one wrong-but-plausible next step and, when it
 * is new (not the gold, not another choice, not the following step), puts it in place of a
 * distractor from the operator that supplied the most, so the operator mix stays varied.
 */
export async function modelDistractor(draft: QuestionDraft, llm: LlmAssist, t: Trajectory, excluded: readonly string[], findings: Finding[]): Promise<void> {
  const mcq = draft.mcq;
  if (!mcq || !STEP_KINDS.has(draft.kind)) return;
  const gold = mcq.choices[mcq.gold]!;
  try {
    const reply = firstLine(await llm.complete(perturbPrompt(t.task.goal, gold, draft.kind), { maxTokens: 120, temperature: 0, stop: ['\n'] }), 600);
    const taken = new Set([...mcq.choices, ...excluded].map(normaliseChoice));
    if (!reply || taken.has(normaliseChoice(reply))) throw new Error('the reply repeats an existing option');
    const counts = new Map<string, number>();
    mcq.sources.forEach((s) => counts.set(s, (counts.get(s) ?? 0) + 1));
    let replace = -1;
    mcq.sources.forEach((s, i) => {
      if (s === 'gold') return;
      if (replace < 0 || (counts.get(s) ?? 0) >= (counts.get(mcq.sources[replace]!) ?? 0)) replace = i;
    });
    if (replace < 0) return;
    mcq.choices[replace] = reply;
    mcq.sources[replace] = 'model_perturbation';
    if (mcq.reasons) mcq.reasons[replace] = 'a model-written plausible but wrong next step';
  } catch (err) {
    findings.push(make('build-llm-failed', {}, { purpose: 'distractor generation', traj_id: t.traj_id, reason: (err as Error).message }));
  }
}
