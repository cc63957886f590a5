import { beforeAll, describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { planSuite, type PlanOptions } from '../../generator/core/emit/plan.js';
import { builtinTaskNames, type BuiltinTaskNames } from '../../generator/core/emit/names.js';
import { loadSuiteTemplates, type SuiteTemplates } from '../../generator/core/emit/templates.js';
import { readBackYaml } from '../../generator/core/emit/yaml-io.js';
import type { Question } from '../../generator/core/questions/types.js';
import { mcq } from './support.js';

let builtins: BuiltinTaskNames;
let templates: SuiteTemplates;
beforeAll(async () => {
  builtins = await builtinTaskNames();
  templates = await loadSuiteTemplates(nodeVfs);
});

const defaults: PlanOptions = { suite: 'suite', scoring: 'letter', numFewshot: 2, harnessVersion: '0.4.13' };
const plan = (qs: Question[], over: Partial<PlanOptions> = {}) => planSuite(qs, { ...defaults, ...over }, builtins, templates);
const yaml = (text: string): any => readBackYaml(text).value;
const rows = (text: string) => text.trimEnd().split('\n').map((l) => JSON.parse(l));

const q = (id: string, language: 'en' | 'zh' | undefined, over: Record<string, unknown> = {}): Question =>
  mcq({ id, language, prompt: `Request: ${id}\n`, kind: 'dr_plan_mcq', task: 'aptpace_dr_plan_mcq', ...over } as any);

describe('task names, shots and groups by language', () => {
  it('one language: task names unchanged, suite → area subgroup → tasks', () => {
    const p = plan([q('a', 'zh'), q('b', 'zh'), q('c', 'zh', { kind: 'plan_mcq', task: 'aptpace_swe_plan_mcq' })]);
    expect(p.tasks.map((t) => [t.task, t.area, t.language])).toEqual([
      ['aptpace_dr_plan_mcq', 'dr', 'zh'],
      ['aptpace_swe_plan_mcq', 'swe', 'zh'],
    ]);
    expect(yaml(p.files.get('_suite.yaml')!)).toMatchObject({ group: 'suite', task: ['suite_swe', 'suite_dr'] });
    expect(yaml(p.files.get('_suite_dr.yaml')!)).toMatchObject({ task: ['aptpace_dr_plan_mcq'], aggregate_metric_list: [{ metric: 'acc', weight_by_size: false }] });
  });

  it('two languages: `_en`/`_zh` task names (never doubled), and shots only from the same language', () => {
    const test = [q('en-1', 'en'), q('zh-1', 'zh'), q('zh-2', 'zh', { task: 'aptpace_dr_plan_mcq_zh' }), q('old-1', undefined)];
    const pool = [q('pool-en', 'en'), q('pool-zh-1', 'zh'), q('pool-zh-2', 'zh')];
    const p = plan(test, { fewshot: pool });
    expect(p.findings.filter((f) => f.severity === 'error')).toEqual([]);
    // A question without `language` is English; a task already named `…_zh` keeps its name.
    expect(p.tasks.map((t) => [t.task, t.docs, t.fewshot])).toEqual([
      ['aptpace_dr_plan_mcq_en', 2, 1],
      ['aptpace_dr_plan_mcq_zh', 2, 2],
    ]);
    expect(rows(p.files.get('data/aptpace_dr_plan_mcq_zh.fewshot.jsonl')!).map((r) => r.id)).toEqual(['pool-zh-1', 'pool-zh-2']);
    expect(rows(p.files.get('data/aptpace_dr_plan_mcq_en.fewshot.jsonl')!).map((r) => r.id)).toEqual(['pool-en']);
    expect(yaml(p.files.get('_suite.yaml')!)).toMatchObject({ task: ['suite_en', 'suite_zh'] });
    expect(yaml(p.files.get('_suite_zh.yaml')!)).toMatchObject({ task: ['suite_zh_dr'] });
    expect(yaml(p.files.get('_suite_zh_dr.yaml')!)).toMatchObject({ task: ['aptpace_dr_plan_mcq_zh'] });
    expect(p.files.get('README.md')).toContain('| `suite_zh` | all zh tasks | `suite_zh_dr` | 1 |');
  });

  it('--weight-by-size writes weight_by_size: true in every group', () => {
    const p = plan([q('en-1', 'en'), q('zh-1', 'zh')], { weightBySize: true });
    const groups = [...p.files.keys()].filter((f) => /^_suite.*\.yaml$/.test(f));
    expect(groups.sort()).toEqual(['_suite.yaml', '_suite_en.yaml', '_suite_en_dr.yaml', '_suite_zh.yaml', '_suite_zh_dr.yaml']);
    for (const g of groups) expect(yaml(p.files.get(g)!).aggregate_metric_list[0].weight_by_size, g).toBe(true);
  });

  it('a subgroup name taken by a task is an error, and nothing is written', () => {
    const p = plan([q('a', 'en', { task: 'suite_dr' })]);
    expect(p.findings.map((f) => f.code)).toContain('emit-name-duplicate');
    expect(p.files.size).toBe(0);
  });
});
