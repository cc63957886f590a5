import { testPatchOf } from '../corpus.js';
import type { QuestionTypeModule } from './module.js';
import { patchChoices } from './patch-mcq.js';

/** Test-patch MCQ: the test patch that reproduces the issue, among perturbed ones. */
export const testPatchMcq: QuestionTypeModule = {
  kind: 'test_patch_mcq',
  format: 'mcq',
  domains: ['swe'],
  template: 'test_patch_mcq',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    const patch = testPatchOf(t);
    if (!patch) return { drafts: [], skipped: ['no-test-patch'] };
    const mcq = patchChoices(t, patch, ctx, 'test');
    if (!mcq) return { drafts: [], skipped: ['too-few-distractors'] };
    return {
      drafts: [{
        kind: 'test_patch_mcq',
        step: null,
        fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null },
        history: [],
        answerStem: 'The test patch that reproduces the issue is (',
        answerSuffix: ')',
        mcq,
      }],
      skipped: [],
    };
  },
};
