import { beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { emitSuite } from '../../generator/core/emit/suite.js';
import { type BuildResult, buildQuestions } from '../../generator/core/questions/build.js';
import { ZH_ANSWER_STEMS } from '../../generator/core/questions/stems-zh.js';
import type { CompletionQuestion, Question } from '../../generator/core/questions/types.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { hasSharedData, python, repoRoot, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { readRun, run, runHarnessTests } from './support.js';

/**
 * A Chinese deep-research build from the real APTBench rows, built together with the English
 * ones: Chinese questions must carry Chinese instructions and stems and show only Chinese
 * examples; then their answers are scored in the real harness (answer_model.py answers from a
 * table): right answers get ROUGE > 0, answers sharing no character with the target get 0.
 */
const DR = (lang: string) => shared('trajectories', 'deep-research', lang === 'zh' ? 'aptbench_summ_ans_zh.head40.jsonl' : 'aptbench_summ_ans_en.head120.jsonl');
const cjkShare = (text: string) => {
  const letters = [...text].filter((c) => /\p{L}/u.test(c));
  return letters.filter((c) => /[\u4e00-\u9fff]/.test(c)).length / Math.max(1, letters.length);
};

describe.skipIf(!hasSharedData)('a Chinese deep-research build', () => {
  let result: BuildResult;
  let byId: Map<string, Question>;
  beforeAll(async () => {
    const read = await readTrajectories(nodeVfs, [DR('zh'), DR('en')]);
    result = await buildQuestions(read.trajectories, { seed: '0', kinds: ['dr_plan_mcq', 'dr_answer_tc'] });
    byId = new Map(result.questions.map((q) => [q.id, q]));
  }, 120_000);

  it('renders Chinese questions with the Chinese templates and stems, English ones as before', () => {
    const zh = result.questions.filter((q) => q.language === 'zh');
    const en = result.questions.filter((q) => q.language === 'en');
    expect(zh.length).toBeGreaterThan(40);
    expect(en.length).toBeGreaterThan(40);
    for (const q of zh) {
      expect(q.prompt.startsWith('给定要解决的问题') || q.prompt.includes('问题：'), q.id).toBe(true);
      expect(Object.values(ZH_ANSWER_STEMS)).toContain(q.answer_stem);
      expect(q.prompt.endsWith(q.answer_stem)).toBe(true);
      expect(q.build.template.startsWith('zh/'), q.id).toBe(true);
    }
    expect(zh.filter((q) => q.kind === 'dr_plan_mcq').every((q) => q.prompt.startsWith('给定要解决的问题、当前行为轨迹和接下来可能有的几个行为'))).toBe(true);
    for (const q of en) {
      expect(q.answer_stem).toMatch(/^[\x20-\x7e\n`]+$/);
      expect(q.build.template.startsWith('zh/')).toBe(false);
    }
  });

  it('shows Chinese questions only Chinese examples, and English ones only English examples', () => {
    let shotsSeen = 0;
    for (const q of result.questions) {
      for (const shot of q.build.fewshot_ids ?? []) {
        shotsSeen++;
        expect(byId.get(shot)?.language, `${q.id} shows ${shot}`).toBe(q.language);
      }
    }
    expect(shotsSeen).toBeGreaterThan(0);
    expect(result.questions.some((q) => q.language === 'zh' && (q.build.fewshot_ids ?? []).length > 0)).toBe(true);
  });

  it('borrows Chinese questions\' distractors only from Chinese trajectories', () => {
    for (const q of result.questions) {
      if (q.language !== 'zh' || q.format !== 'mcq') continue;
      q.choices.forEach((c, i) => {
        if (q.build.choice_sources?.[i] === 'borrowed_step') expect(cjkShare(c), `${q.id} option ${i}: ${c}`).toBeGreaterThan(0);
      });
    }
  });

  describe.skipIf(!runHarnessTests)('scored in the real harness', () => {
    it('gives right Chinese answers ROUGE > 0 and answers with no shared character 0', async () => {
      const answers = result.questions.filter((q): q is CompletionQuestion => q.language === 'zh' && q.kind === 'dr_answer_tc' && q.split === 'test').slice(0, 6);
      expect(answers.length).toBe(6);
      const root = tempDir('aptpace-zh-build-');
      const suite = 'aptpace_zhb';
      const emitted = await emitSuite(nodeVfs, answers, { suite, outDir: path.join(root, suite) });
      expect(emitted.findings.filter((f) => f.severity === 'error')).toEqual([]);
      // Even-numbered documents answer with their target; odd ones with characters the target lacks.
      const wrongFor = (target: string) => ['鲸鱼', '钢琴', '沙漠', '火山'].find((w) => ![...w].some((c) => target.includes(c)))!;
      const generate = Object.fromEntries(answers.map((q, i) => [q.id, i % 2 === 0 ? q.targets[0]! : wrongFor(q.targets[0]!)]));
      writeFileSync(path.join(root, 'answers.json'), JSON.stringify({ generate, choose: {} }));
      const model = path.join(repoRoot, 'test', 'emit', 'answer_model.py');
      const r = await run(python, [model, path.join(root, 'answers.json'), '--model', 'aptpace-answers', '--model_args', 'pretrained=aptpace-answers', '--include_path', path.join(root, suite), '--tasks', suite, '--log_samples', '--output_path', 'out', '--seed', '0'], { cwd: root });
      if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-4000)}`);
      const harness = readRun(path.join(root, 'out', 'aptpace-answers'));
      const records = [...harness.samples.values()].flat();
      expect(records.length).toBe(6);
      for (const rec of records) {
        const i = answers.findIndex((q) => q.id === rec.doc.id);
        for (const metric of ['rouge1', 'rougeL'] as const) {
          if (i % 2 === 0) expect(rec[metric], `${rec.doc.id} ${metric}`).toBeGreaterThan(0);
          else expect(rec[metric], `${rec.doc.id} ${metric}`).toBe(0);
        }
        expect(rec.exact_match).toBe(i % 2 === 0 ? 1 : 0);
      }
    }, 240_000);
  });
});
