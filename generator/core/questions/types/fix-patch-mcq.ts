import { fixPatchOf } from '../corpus.js';
import type { QuestionTypeModule } from './module.js';
import { patchChoices } from './patch-mcq.js';

/** Fix-patch MCQ: the successful patch among perturbed patches. */
export const fixPatchMcq: QuestionTypeModule = {
  kind: 'fix_patch_mcq',
  format: 'mcq',
  domains: ['swe'],
  template: 'fix_patch_mcq',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    const patch = fixPatchOf(t);
    if (!patch) return { drafts: [], skipped: ['no-patch'] };
    const mcq = patchChoices(t, patch, ctx, 'fix');
    if (!mcq) return { drafts: [], skipped: ['too-few-distractors'] };
    return {
      drafts: [{
        kind: 'fix_patch_mcq',
        step: null,
        fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null },
        history: [],
        answerStem: 'The correct patch is (',
        answerSuffix: ')',
        mcq,
      }],
      skipped: [],
    };
  },
};
