import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { emitSuite } from '../../generator/core/emit/suite.js';
import type { Question } from '../../generator/core/questions/types.js';
import { python, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { completion, mcq, readRun, run, runHarnessTests, type HarnessRun } from './support.js';

/**
 * Chinese and English answers scored by the emitted utils.py inside the real harness, with a
 * model that answers from a table (answer_model.py), against scores worked out by hand below.
 * The suite mixes languages, so it also checks the task names, the subgroups and the macro
 * averages the harness reports.
 */
const SUITE = 'aptpace_cjk';
const MODEL = path.join(repoRoot, 'test', 'emit', 'answer_model.py');

const answer = (id: string, target: string, language: 'en' | 'zh'): Question =>
  completion({
    id,
    kind: 'dr_answer_tc',
    task: 'aptpace_dr_answer',
    prompt: language === 'zh' ? `问题：${id} 的答案是什么？\n` : `Question: what is the answer of ${id}?\n`,
    answer_stem: language === 'zh' ? '答案：[' : 'The answer is [',
    targets: [target],
    stop: [']'],
    metric: 'exact_match+rouge',
    language,
  } as any);

const choice = (id: string, task: string, kind: string, gold: number): Question =>
  mcq({ id, task, kind, gold, choices: ['open the file', 'run the tests', 'edit setup.py'], prompt: `Request: pick the next step (${id}).\n`, language: 'en' } as any);

const QUESTIONS: Question[] = [
  answer('zh-1', '吉列尔莫·加尔萨', 'zh'),
  answer('zh-2', '帕劳', 'zh'),
  answer('zh-3', '1994年10月1日', 'zh'),
  answer('zh-4', 'ABC-123:完成', 'zh'),
  answer('en-1', 'Paris', 'en'),
  choice('mcq-1', 'aptpace_swe_plan_mcq', 'plan_mcq', 0),
  choice('mcq-2', 'aptpace_swe_plan_mcq', 'plan_mcq', 1),
  choice('mcq-3', 'aptpace_swe_plan_mcq', 'plan_mcq', 2),
  choice('env-1', 'aptpace_env_setup_plan_mcq', 'env_setup_plan_mcq', 1),
];

const ANSWERS = {
  generate: {
    // Perfect: EM 1, every ROUGE 1 (the default tokenizer gave 0: it drops CJK characters).
    'zh-1': '吉列尔莫·加尔萨',
    // Wrong: no shared character, everything 0.
    'zh-2': '斐济',
    // Partial. Tokens: reference 1994 年 10 月 1 日 (6), answer 1994 年 (2).
    // ROUGE-1: P = 2/2, R = 2/6 → F = 2·1·(1/3)/(1 + 1/3) = 1/2. ROUGE-2: the one answer
    // bigram (1994 年) among the reference's 5 → P = 1, R = 1/5 → F = 1/3. ROUGE-L: LCS 2 → 1/2.
    'zh-3': '1994年',
    // Full-width letters, digits, hyphen and colon: NFKC makes them the reference. EM 1, ROUGE 1.
    'zh-4': 'ＡＢＣ－１２３：完成',
    'en-1': 'Paris',
  },
  // plan MCQ: right on 1 of 3 documents; env-setup MCQ: right on its 1 document.
  choose: { 'mcq-1': 0, 'mcq-2': 0, 'mcq-3': 0, 'env-1': 1 },
};

const ZH_ROUGE = { rouge1: [1, 0, 1 / 2, 1], rouge2: [1, 0, 1 / 3, 1], rougeL: [1, 0, 1 / 2, 1] };
const ZH_EM = [1, 0, 0, 1];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe.skipIf(!runHarnessTests)('CJK-aware scoring and macro-averaged groups in the real harness', () => {
  let harness: HarnessRun;
  let suiteDir: string;

  beforeAll(async () => {
    const root = tempDir('aptpace-cjk-');
    suiteDir = path.join(root, SUITE);
    const emitted = await emitSuite(nodeVfs, QUESTIONS, { suite: SUITE, outDir: suiteDir });
    expect(emitted.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const answers = path.join(root, 'answers.json');
    writeFileSync(answers, JSON.stringify(ANSWERS));
    const r = await run(python, [MODEL, answers, '--model', 'aptpace-answers', '--model_args', 'pretrained=aptpace-answers', '--include_path', suiteDir, '--tasks', SUITE, '--log_samples', '--output_path', 'out', '--seed', '0'], { cwd: root });
    if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-4000)}`);
    harness = readRun(path.join(root, 'out', 'aptpace-answers'));
  }, 240_000);

  it('names each task by language when the suite has two, and nests language then area subgroups', () => {
    expect([...harness.samples.keys()].sort()).toEqual(['aptpace_dr_answer_en', 'aptpace_dr_answer_zh', 'aptpace_env_setup_plan_mcq_en', 'aptpace_swe_plan_mcq_en']);
    const sub = harness.results.group_subtasks;
    expect(sub[SUITE]).toEqual([`${SUITE}_en`, `${SUITE}_zh`]);
    expect(sub[`${SUITE}_en`]).toEqual([`${SUITE}_en_swe`, `${SUITE}_en_dr`]);
    expect(sub[`${SUITE}_zh`]).toEqual([`${SUITE}_zh_dr`]);
    expect(sub[`${SUITE}_en_swe`].sort()).toEqual(['aptpace_env_setup_plan_mcq_en', 'aptpace_swe_plan_mcq_en']);
  });

  it('scores Chinese answers per document as computed by hand (ROUGE > 0 when right, 0 when wrong)', () => {
    const records = [...harness.samples.get('aptpace_dr_answer_zh')!].sort((a, b) => (a.doc.id < b.doc.id ? -1 : 1));
    expect(records.map((r) => r.doc.id)).toEqual(['zh-1', 'zh-2', 'zh-3', 'zh-4']);
    records.forEach((r, i) => {
      expect(r.exact_match, r.doc.id).toBe(ZH_EM[i]);
      expect(r.acc, `${r.doc.id} headline = exact match`).toBe(ZH_EM[i]);
      for (const metric of ['rouge1', 'rouge2', 'rougeL'] as const) expect(r[metric], `${r.doc.id} ${metric}`).toBeCloseTo(ZH_ROUGE[metric][i]!, 12);
    });
    const task = harness.results.results.aptpace_dr_answer_zh;
    expect(task['exact_match,none']).toBeCloseTo(mean(ZH_EM), 12);
    expect(task['acc,none']).toBeCloseTo(mean(ZH_EM), 12);
    expect(task['rouge1,none']).toBeCloseTo(mean(ZH_ROUGE.rouge1), 12);
    expect(harness.results.results.aptpace_dr_answer_en['rouge1,none']).toBe(1);
  });

  it('reports group scores as macro averages over tasks, not weighted by document count', () => {
    const groups = harness.results.groups;
    const planAcc = 1 / 3;
    const envAcc = 1;
    expect(harness.results.results.aptpace_swe_plan_mcq_en['acc,none']).toBeCloseTo(planAcc, 12);
    // Macro: (1/3 + 1)/2 = 2/3; weighted by size it would be (1 + 1)/4 = 1/2.
    expect(groups[`${SUITE}_en_swe`]['acc,none']).toBeCloseTo((planAcc + envAcc) / 2, 12);
    // The headline covers the answer tasks too, by their exact match: English 1, Chinese mean(ZH_EM).
    expect(harness.results.results.aptpace_dr_answer_en['acc,none']).toBe(1);
    expect(groups[`${SUITE}_zh`]['acc,none']).toBeCloseTo(mean(ZH_EM), 12);
    expect(groups[`${SUITE}_en`]['acc,none']).toBeCloseTo((planAcc + envAcc + 1) / 3, 12);
    expect(groups[SUITE]['acc,none']).toBeCloseTo((planAcc + envAcc + 1 + mean(ZH_EM)) / 4, 12);
    // One score per group: no other aggregate.
    for (const g of Object.values<any>(groups)) expect(Object.keys(g.sample_count)).toEqual(['acc,none']);
  });

  it('tokenises ASCII text exactly as rouge_score\'s default tokenizer, and CJK by character', async () => {
    const script = `
import importlib.util, json, sys
from rouge_score import tokenize
spec = importlib.util.spec_from_file_location("u", sys.argv[1]); u = importlib.util.module_from_spec(spec); spec.loader.exec_module(u)
texts = ["The Quick-brown fox, 2 times!", "don't stop_me now 3.14", "  A  b\\tC\\n", "吉列尔莫·加尔萨", "Hello世界 ok", "ＡＢＣ１２３"]
print(json.dumps({"ours": [u.rouge_tokens(t) for t in texts], "default": [tokenize.tokenize(t, None) for t in texts]}, ensure_ascii=False))
`;
    const r = await run(python, ['-c', script, path.join(suiteDir, 'utils.py')]);
    expect(r.code, r.stderr).toBe(0);
    const { ours, default: builtin } = JSON.parse(r.stdout);
    expect(ours.slice(0, 3)).toEqual(builtin.slice(0, 3));
    expect(builtin[3]).toEqual([]);
    expect(ours.slice(3)).toEqual([['吉', '列', '尔', '莫', '加', '尔', '萨'], ['hello', '世', '界', 'ok'], ['abc123']]);
  });

  it('writes the flag into every group when size weighting is asked for', async () => {
    const dir = path.join(tempDir('aptpace-cjk-weighted-'), SUITE);
    await emitSuite(nodeVfs, QUESTIONS, { suite: SUITE, outDir: dir, weightBySize: true });
    for (const g of ['', '_en', '_zh', '_en_swe', '_en_dr', '_zh_dr']) {
      const text = readFileSync(path.join(dir, `_${SUITE}${g}.yaml`), 'utf8');
      expect(text, g).toContain('weight_by_size: true');
      expect(text, g).not.toContain('weight_by_size: false');
    }
  });
});
