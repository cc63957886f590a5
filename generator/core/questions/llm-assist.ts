import type { Finding } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import type { Trajectory } from '../trajectories/types.js';
import { questionFindings } from './findings.js';
import { oneLine } from './plans.js';
import type { QuestionDraft } from './types/module.js';

const make = findingFactory(questionFindings);

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
      const line = oneLine(reply);
      if (!line) throw new Error('empty reply');
      rewritten.push(line);
    }
    if (new Set(rewritten.map((r) => r.toLowerCase())).size !== rewritten.length) throw new Error('rewrites are not distinct');
    draft.mcq.choices = rewritten;
  } catch (err) {
    findings.push(make('build-llm-failed', {}, { purpose: 'plan rewriting', traj_id: t.traj_id, reason: (err as Error).message }));
  }
}
