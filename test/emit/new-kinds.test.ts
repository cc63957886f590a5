import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { builtinTaskNames, type BuiltinTaskNames } from '../../generator/core/emit/names.js';
import { planSuite, type PlanOptions } from '../../generator/core/emit/plan.js';
import { loadSuiteTemplates, type SuiteTemplates } from '../../generator/core/emit/templates.js';
import { buildQuestions } from '../../generator/core/questions/build.js';
import type { Question } from '../../generator/core/questions/types.js';
import type { Trajectory } from '../../generator/core/trajectories/types.js';
import { fixtures, hasPython, lmEval, python } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { fixtureQuestions, jsonlRows, readRun, run, runHarnessTests } from './support.js';

const KINDS = ['env_setup_error_mcq', 'issue_fix_tool_call_tc', 'dr_citation_ms'] as const;
const SUITE = 'aptpace_newkinds';
const load = (file: string): Trajectory[] =>
  readFileSync(fixtures('new-kinds', file), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Trajectory);

let builtins: BuiltinTaskNames;
let templates: SuiteTemplates;
let questions: Question[];
let suiteDir: string;
const options: PlanOptions = { suite: SUITE, scoring: 'letter', numFewshot: 0, harnessVersion: '0.4.13' };

beforeAll(async () => {
  builtins = await builtinTaskNames();
  templates = await loadSuiteTemplates(nodeVfs);
  const trajectories = [...load('setup-errors.jsonl'), ...load('tool-calls.jsonl'), ...load('dr-citations.jsonl')];
  questions = (await buildQuestions(trajectories, { seed: 'nk', kinds: [...KINDS], shots: 0 })).questions;
  const plan = planSuite(questions, options, builtins, templates);
  expect(plan.findings.filter((f) => f.severity === 'error')).toEqual([]);
  suiteDir = path.join(tempDir('aptpace-newkinds-'), SUITE);
  for (const [file, text] of plan.files) {
    mkdirSync(path.dirname(path.join(suiteDir, file)), { recursive: true });
    writeFileSync(path.join(suiteDir, file), text);
  }
});

describe('emitting the new kinds', () => {
  it('compiles each kind to its harness output type and scorer', () => {
    const plan = planSuite(questions, options, builtins, templates);
    // The suite holds English and Chinese questions, so task names carry the language.
    expect(plan.tasks.map((t) => [t.task, t.kind])).toEqual([
      ['aptpace_dr_citation_ms_en', 'multi_select'],
      ['aptpace_dr_citation_ms_zh', 'multi_select'],
      ['aptpace_env_setup_error_mcq_en', 'mcq_letter'],
      ['aptpace_swe_tool_call_en', 'completion_tool_call'],
    ]);
    const yaml = (f: string) => plan.files.get(f)!;
    expect(yaml(`_${SUITE}_multi_select_template_yaml`)).toContain('process_results: !function "utils.process_results_multi_select"');
    expect(yaml(`_${SUITE}_completion_tool_call_template_yaml`)).toContain('process_results: !function "utils.process_results_tool_call"');
    expect(yaml(`_${SUITE}_multi_select_template_yaml`)).toContain('output_type: "generate_until"');
    const utils = plan.files.get('utils.py')!;
    expect(utils).toContain('def process_results_tool_call(doc, results):');
    expect(utils).toContain('def process_results_multi_select(doc, results):');
    const tc = jsonlRows(path.join(suiteDir, 'data', 'aptpace_swe_tool_call_en.test.jsonl'));
    expect(new Set(tc.map((r) => r.call_format))).toEqual(new Set(['json', 'command']));
    const ms = ['en', 'zh'].flatMap((l) => jsonlRows(path.join(suiteDir, 'data', `aptpace_dr_citation_ms_${l}.test.jsonl`)));
    expect(ms.map((r) => r.n_choices)).toEqual([3, 3]);
    for (const r of ms) expect(r.targets[0]).toMatch(/^[1-3], [1-3]$/);
    const mc = jsonlRows(path.join(suiteDir, 'data', 'aptpace_env_setup_error_mcq_en.test.jsonl'));
    for (const r of mc) expect(r.choices).toHaveLength(7);
  });

  it('leaves suites without these kinds unchanged: no tool-call or multi-select scorer in utils.py', async () => {
    const plan = planSuite(await fixtureQuestions(), { ...options, suite: 'aptpace_old' }, builtins, templates);
    const utils = plan.files.get('utils.py')!;
    expect(utils).not.toContain('process_results_tool_call');
    expect(utils).not.toContain('process_results_multi_select');
  });
});

/** Calls the emitted scorers directly: correct answers score 1, wrong ones 0. */
const SCORER_CHECK = String.raw`
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("utils", sys.argv[1])
u = importlib.util.module_from_spec(spec); spec.loader.exec_module(u)
out = {"tc": [], "ms": [], "hand": {}}
for row in map(json.loads, open(sys.argv[2], encoding="utf-8")):
    out["tc"].append([u.process_results_tool_call(row, [u.normalise_first_line(row["targets"][0])]), u.process_results_tool_call(row, ["lol"])])
for row in map(json.loads, open(sys.argv[3], encoding="utf-8")):
    out["ms"].append([u.process_results_multi_select(row, [row["targets"][0]]), u.process_results_multi_select(row, ["9"])])
tc = lambda pred, target, fmt: u.process_results_tool_call({"targets": [target], "call_format": fmt}, [pred])
ms = lambda pred, target: u.process_results_multi_select({"targets": [target]}, [pred])
gold = '{"name":"str_replace_editor","arguments":{"command":"view","path":"/a/b.py"}}'
out["hand"] = {
    "json_reordered": tc('{"arguments": {"path": "/a/b.py", "command":  "view"}, "name": "str_replace_editor"}', gold, "json"),
    "json_openai": tc('{"function": {"name": "str_replace_editor", "arguments": "{\\"command\\": \\"view\\", \\"path\\": \\"/a/b.py\\"}"}}', gold, "json"),
    "json_wrong_arg": tc('{"name":"str_replace_editor","arguments":{"command":"view","path":"/a/c.py"}}', gold, "json"),
    "json_broken": tc('{"name": "str_replace_editor", ', gold, "json"),
    "cmd_quotes": tc('open "src/dates.py"  40', "open src/dates.py 40", "command"),
    "cmd_fenced": tc('$ open src/dates.py 40', "open src/dates.py 40", "command"),
    "cmd_wrong": tc("open src/dates.py 41", "open src/dates.py 40", "command"),
    "ms_order": ms("3, 1", "1, 3"),
    "ms_fullwidth": ms("１，３", "1, 3"),
    "ms_partial": ms("1", "1, 3"),
    "ms_extra": ms("1, 2, 3", "1, 3"),
    "ms_empty": ms("", "1, 3"),
}
print(json.dumps(out))
`;

describe.skipIf(!hasPython)('the emitted scorers', () => {
  it('score a correct answer 1 and a wrong one 0, with F1 for partial sets', async () => {
    const script = path.join(tempDir('aptpace-scorer-'), 'check.py');
    writeFileSync(script, SCORER_CHECK);
    const r = await run(python, [script, path.join(suiteDir, 'utils.py'), path.join(suiteDir, 'data', 'aptpace_swe_tool_call_en.test.jsonl'), path.join(suiteDir, 'data', 'aptpace_dr_citation_ms_zh.test.jsonl')]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.tc.length).toBeGreaterThan(0);
    for (const [right, wrong] of out.tc) {
      expect(right).toEqual({ acc: 1, tool_call_match: 1, tool_name_match: 1 });
      expect(wrong).toEqual({ acc: 0, tool_call_match: 0, tool_name_match: 0 });
    }
    for (const [right, wrong] of out.ms) {
      expect(right).toEqual({ acc: 1, set_match: 1, set_f1: 1 });
      expect(wrong).toEqual({ acc: 0, set_match: 0, set_f1: 0 });
    }
    const h = out.hand;
    expect(h.json_reordered).toEqual({ acc: 1, tool_call_match: 1, tool_name_match: 1 });
    expect(h.json_openai).toEqual({ acc: 1, tool_call_match: 1, tool_name_match: 1 });
    expect(h.json_wrong_arg).toEqual({ acc: 0, tool_call_match: 0, tool_name_match: 1 });
    expect(h.json_broken).toEqual({ acc: 0, tool_call_match: 0, tool_name_match: 0 });
    expect(h.cmd_quotes).toEqual({ acc: 1, tool_call_match: 1, tool_name_match: 1 });
    expect(h.cmd_fenced).toEqual({ acc: 1, tool_call_match: 1, tool_name_match: 1 });
    expect(h.cmd_wrong).toEqual({ acc: 0, tool_call_match: 0, tool_name_match: 1 });
    expect(h.ms_order).toEqual({ acc: 1, set_match: 1, set_f1: 1 });
    expect(h.ms_fullwidth).toEqual({ acc: 1, set_match: 1, set_f1: 1 });
    // F1 by hand: {1} vs {1,3}: 2·1/(1+2) = 2/3; {1,2,3} vs {1,3}: 2·2/(3+2) = 0.8.
    expect(h.ms_partial.set_match).toBe(0);
    expect(h.ms_partial.acc).toBe(0);
    expect(h.ms_partial.set_f1).toBeCloseTo(2 / 3, 12);
    expect(h.ms_extra.set_f1).toBeCloseTo(0.8, 12);
    expect(h.ms_empty).toEqual({ acc: 0, set_match: 0, set_f1: 0 });
  }, 60_000);
});

describe.skipIf(!runHarnessTests)('lm_eval runs the new kinds', () => {
  it('runs every document with the new scorers (the dummy model scores 0 on generation, chance on MCQ)', async () => {
    const cwd = tempDir('aptpace-newkinds-run-');
    const r = await run(lmEval, ['--model', 'dummy', '--model_args', 'pretrained=aptpace-dummy', '--include_path', suiteDir, '--tasks', SUITE, '--log_samples', '--output_path', 'out', '--seed', '0'], { cwd });
    if (r.code !== 0) throw new Error(`lm_eval exited ${r.code}:\n${r.stderr.slice(-4000)}`);
    const harness = readRun(path.join(cwd, 'out', 'aptpace-dummy'));
    const expectMetrics: Record<string, string[]> = {
      aptpace_swe_tool_call_en: ['acc', 'tool_call_match', 'tool_name_match'],
      aptpace_dr_citation_ms_en: ['acc', 'set_f1', 'set_match'],
      aptpace_dr_citation_ms_zh: ['acc', 'set_f1', 'set_match'],
      aptpace_env_setup_error_mcq_en: ['acc'],
    };
    for (const [task, metrics] of Object.entries(expectMetrics)) {
      const rows = jsonlRows(path.join(suiteDir, 'data', `${task}.test.jsonl`));
      const samples = harness.samples.get(task)!;
      expect(samples.map((s) => s.doc_id)).toEqual(rows.map((_, i) => i));
      for (const s of samples) {
        expect([...s.metrics].sort()).toEqual(metrics);
        if (task !== 'aptpace_env_setup_error_mcq_en') {
          expect(s.filtered_resps).toEqual(['lol']);
          for (const m of metrics) expect(s[m]).toBe(0);
        }
      }
    }
    expect(harness.results.results.aptpace_swe_tool_call_en['tool_call_match,none']).toBe(0);
    expect(harness.results.results.aptpace_dr_citation_ms_zh['set_f1,none']).toBe(0);
    expect(Object.keys(harness.results.groups[SUITE]).filter((k) => k.includes(',')).sort()).toEqual(['acc,none', 'acc_stderr,none']);
  }, 300_000);
});
