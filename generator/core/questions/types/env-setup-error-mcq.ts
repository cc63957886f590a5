import { singleSpaced } from '../../kernel/whitespace.js';
import type { Trajectory } from '../../trajectories/types.js';
import { arrange, pickDistinct } from '../distractors.js';
import { normaliseChoice } from '../normalise.js';
import { errorFixPairs, promptEntities } from '../operators/setup-errors.js';
import { type FixCandidate, entitySwaps, otherClassRemedies } from '../operators/setup-fix.js';
import { historyBefore } from '../views.js';
import { offeredToolsBefore } from './new-kinds-shared.js';
import { type QuestionDraft, type QuestionTypeModule, type SkipReason, chooseAnchors } from './module.js';

/** APTBench's env_setup_error rows have seven options (A–G). */
export const ENV_SETUP_ERROR_CHOICES = 7;
export const ENV_SETUP_ERROR_HEADER = 'Request: A setup command failed.';

const collapse = (s: string) => singleSpaced(s).trim();

/** Word-ish tokens (paths, package names, flags) used to spot strings from the future. */
function tokens(text: string): Set<string> {
  return new Set(text.split(/[\s'"`()[\]{}<>,;|&=]+/).filter((w) => w.length >= 3));
}

/**
 * Environment-setup error diagnosis: the history up to a failed setup command (and any
 * looking-around after it), then "which command fixes the error?". The gold is the later
 * command that verifiably fixed it (the error line never recurs); the six distractors are
 * setup fixes for other error classes, the fix aimed at another path/package of the prompt,
 * and other runs' verified fixes. None appears in the prompt or carries a string first seen
 * after the fix step.
 */
export const envSetupErrorMcq: QuestionTypeModule = {
  kind: 'env_setup_error_mcq',
  format: 'mcq',
  domains: ['env_setup', 'swe'],
  template: 'env_setup_error_mcq',
  generate(t, ctx) {
    const { pairs, errors } = errorFixPairs(t);
    if (errors === 0) return { drafts: [], skipped: ['no-setup-error'] };
    if (pairs.length === 0) return { drafts: [], skipped: ['no-verified-fix'] };
    const byFix = new Map(pairs.map((p) => [p.fix, p]));
    const drafts: QuestionDraft[] = [];
    const skipped: SkipReason[] = [];
    for (const fixAt of chooseAnchors(ctx, [...byFix.keys()].sort((a, b) => a - b))) {
      const pair = byFix.get(fixAt)!;
      const history = historyBefore(t, fixAt, ctx.observationChars);
      const promptText = [t.task.goal, ...history.flatMap((v) => [v.raw, v.thought ?? '', v.observation ?? ''])].join('\n');
      const promptFlat = collapse(promptText);
      const seen = tokens(promptText);
      const future = new Set([...tokens(futureText(t, fixAt))].filter((w) => !seen.has(w)));
      const usable = (c: FixCandidate) => !promptFlat.includes(collapse(c.value)) && ![...tokens(c.value)].some((w) => future.has(w));
      const entities = promptEntities(history.flatMap((v) => [v.raw, v.observation ?? '']));
      const failedView = history[pair.failed]!;
      const errorEntities = promptEntities([failedView.raw, failedView.observation ?? '']);
      const rng = ctx.rng.fork(`fix${fixAt}`);
      const proposals: Array<{ operator: string; values: FixCandidate[] }> = [
        { operator: 'other_class_remedy', values: otherClassRemedies(pair.cls, pair.failed, errorEntities, entities, rng.fork('remedy'), usable) },
        { operator: 'entity_swap', values: entitySwaps(pair.fixCommand, entities).filter(usable) },
        // Other runs' fixes (borrowedFixes) are not offered: they are those runs' golds, which the
        // few-shot examples of this kind show, so they would be copied from the prompt.
      ];
      const picked = pickDistinct(rng.fork('pick'), proposals, (c) => normaliseChoice(c.value), normaliseChoice(pair.fixCommand), new Set(), ENV_SETUP_ERROR_CHOICES - 1);
      if (picked.length < ENV_SETUP_ERROR_CHOICES - 1) {
        skipped.push('too-few-distractors');
        continue;
      }
      const reasons: Record<string, string> = { [pair.fixCommand]: '' };
      for (const p of picked) reasons[p.value.value] = p.value.reason;
      drafts.push({
        kind: 'env_setup_error_mcq',
        step: fixAt,
        fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null, failed_step: pair.failed + 1, error: pair.error },
        history,
        answerStem: 'The command that fixes the error is (',
        answerSuffix: ')',
        mcq: arrange(rng.fork('arrange'), pair.fixCommand, picked.map((p) => ({ value: p.value.value, operator: p.operator }))),
        reasons,
        offeredTools: offeredToolsBefore(t, fixAt),
        questionHeader: ENV_SETUP_ERROR_HEADER,
      });
    }
    return { drafts, skipped };
  },
};

function futureText(t: Trajectory, from: number): string {
  // The fix step's own command is the gold; its observation and everything later is the future.
  const own = t.steps[from]!;
  return [own.observation ?? '', ...t.steps.slice(from + 1).flatMap((s) => [s.action.raw ?? s.action.text, s.thought ?? '', s.observation ?? ''])].join('\n');
}
