import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { python, repoRoot } from '../helpers/env.js';
import { readBackYaml } from '../../generator/core/emit/yaml-io.js';
import { normaliseCommand } from '../../generator/core/questions/normalise.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { emitSuite } from '../../generator/core/emit/suite.js';
import { readQuestions } from '../../generator/core/questions/read-questions.js';
import { DIST_DIR, DIST_SUITE, FIXTURE_FEWSHOT, expectedContext, fixtureQuestions, jsonlRows, probe, run, runHarnessTests } from './support.js';

/** Every emitted task loaded by the harness's own TaskManager, and our helpers checked against Python. */
describe.skipIf(!runHarnessTests)('the harness loads dist-tasks', () => {
  const manifest = JSON.parse(readFileSync(path.join(DIST_DIR, 'aptpace-manifest.json'), 'utf8'));
  let loaded: any;
  beforeAll(async () => {
    loaded = await probe(['load', DIST_DIR, DIST_SUITE]);
  }, 120_000);

  it('registers exactly our tasks, the group and its area subgroups, with explicit unweighted aggregation', () => {
    const subgroups = [`${DIST_SUITE}_swe`, `${DIST_SUITE}_dr`];
    expect(loaded.all_tasks).toEqual([...manifest.tasks, DIST_SUITE, ...subgroups].sort());
    expect(Object.keys(loaded.tasks)).toEqual(manifest.tasks);
    expect(loaded.groups[DIST_SUITE].children).toEqual(subgroups);
    expect(loaded.groups[`${DIST_SUITE}_swe`].children).toEqual(['aptpace_env_setup_plan_mcq', 'aptpace_swe_next_action', 'aptpace_swe_plan_mcq']);
    expect(loaded.groups[`${DIST_SUITE}_dr`].children).toEqual(['aptpace_dr_answer', 'aptpace_dr_answer_rouge']);
    for (const group of [DIST_SUITE, ...subgroups]) {
      expect(loaded.groups[group].aggregate, group).toEqual([{ metric: 'acc', filter_list: ['none'], aggregation: 'mean', weight_by_size: false }]);
    }
  });

  it('loads each task with our documents, few-shot split and context', () => {
    for (const [task, t] of Object.entries<any>(loaded.tasks)) {
      const rows = jsonlRows(path.join(DIST_DIR, 'data', `${task}.test.jsonl`));
      expect(t.docs, task).toEqual(rows);
      expect(t.version).toBe('1.0');
      expect(t.target_delimiter).toBe('');
      expect(t.context0).toBe(expectedContext(DIST_DIR, task, rows[0], t.num_fewshot));
      if (t.num_fewshot > 0) {
        const pool = jsonlRows(path.join(DIST_DIR, 'data', `${task}.fewshot.jsonl`)).map((r) => r.id);
        expect(t.fewshot_ids).toEqual(pool);
        expect(t.fewshot_split).toBe('fewshot');
        expect(pool.filter((id: string) => rows.some((r) => r.id === id))).toEqual([]);
      } else expect(t.fewshot_ids).toEqual([]);
      if (t.output_type === 'multiple_choice') {
        expect(t.choices0).toEqual(rows[0].choices);
        expect(t.target0).toBe(rows[0].gold);
        expect(t.metrics).toEqual(['acc']);
      } else {
        expect(t.target0).toEqual(rows[0].targets);
        expect(t.filters).toEqual(['none']);
        expect(t.generation_kwargs.do_sample).toBe(false);
        expect(t.generation_kwargs.temperature).toBe(0);
      }
    }
    expect(loaded.tasks.aptpace_dr_answer.metrics).toEqual(['acc', 'exact_match', 'rouge1', 'rouge2', 'rougeL']);
    expect(loaded.tasks.aptpace_dr_answer_rouge.metrics).toEqual(['acc', 'rouge1', 'rouge2', 'rougeL']);
    expect(loaded.tasks.aptpace_swe_next_action.metrics).toEqual(['acc', 'exact_match']);
  });

  it('reads every YAML file exactly as our YAML 1.1 model does', () => {
    const yamlFiles = readdirSync(DIST_DIR).filter((f) => f.endsWith('.yaml') || f.endsWith('_yaml')).sort();
    expect(Object.keys(loaded.yaml)).toEqual(yamlFiles);
    for (const f of yamlFiles) {
      const ours = readBackYaml(readFileSync(path.join(DIST_DIR, f), 'utf8'));
      expect(ours.ok).toBe(true);
      expect(loaded.yaml[f], f).toEqual(ours.value);
    }
  });

  it('normalises generations in utils.py exactly as the references were normalised in TypeScript', async () => {
    const samples = [
      'cd /testbed && ls',
      '  cd /testbed &&   ls  \nsecond line',
      '```bash\n$ python reproduce.py\n```',
      '```\n\n   \n  git diff\n',
      '\n\n\tpytest -x tests/test_a.py::test_b\r\n',
      '$ ',
      '$5 million',
      '```',
      '',
      'Antoine de Saint-Exupéry',
      '中国 ',
      'a\u00a0b',
      "sed -i 's/a/b/' f.py ; echo done",
    ];
    const out = await probe(['utils', DIST_DIR], JSON.stringify({ normalise: samples }));
    expect(out.normalised).toEqual(samples.map(normaliseCommand));
    expect(out.filtered).toEqual(out.normalised);
  });

  it('scores ROUGE and exact match in process_results as computed by hand', async () => {
    const out = await probe(
      ['utils', DIST_DIR],
      JSON.stringify({
        rouge: [
          ['the cat sat', ['the cat sat on the mat']],
          ['the cat sat', ['a dog', 'the cat sat']],
          ['', ['anything']],
        ],
        exact_match: [
          ['Athens', ['Athens']],
          ['athens', ['Athens']],
          ['Saint-Exupéry', ['Antoine de Saint-Exupéry', 'Saint-Exupéry']],
        ],
      }),
    );
    // P = 3/3, R = 3/6 → F1 = 2/3; bigrams: P = 2/2, R = 2/5 → 4/7; LCS = 3 → as ROUGE-1.
    expect(out.rouge[0].rouge1).toBeCloseTo(2 / 3, 12);
    expect(out.rouge[0].rouge2).toBeCloseTo(4 / 7, 12);
    expect(out.rouge[0].rougeL).toBeCloseTo(2 / 3, 12);
    expect(out.rouge[1]).toEqual({ rouge1: 1, rouge2: 1, rougeL: 1 });
    expect(out.rouge[2]).toEqual({ rouge1: 0, rouge2: 0, rougeL: 0 });
    expect(out.exact_match).toEqual([1, 0, 1]);
  });

  it('loads option scoring with a few-shot file just as exactly', async () => {
    const out = path.join(tempDir('aptpace-option-'), 'aptpace_opt');
    const emitted = await emitSuite(nodeVfs, await fixtureQuestions(), {
      suite: 'aptpace_opt',
      outDir: out,
      scoring: 'option',
      fewshot: (await readQuestions(nodeVfs, [FIXTURE_FEWSHOT])).questions,
      numFewshot: 2,
    });
    expect(emitted.files.length).toBeGreaterThan(0);
    const opt = await probe(['load', out, 'aptpace_opt']);
    const plan = opt.tasks.aptpace_swe_plan_mcq;
    const rows = jsonlRows(path.join(out, 'data', 'aptpace_swe_plan_mcq.test.jsonl'));
    expect(plan.metrics).toEqual(['acc', 'acc_norm']);
    expect(plan.choices0).toEqual(rows[0].choices);
    expect(plan.choices0[0]).toMatch(/^ I need to /);
    expect(plan.context0).toBe(expectedContext(out, 'aptpace_swe_plan_mcq', rows[0], 2));
    expect(plan.context0).toMatch(/The correct next step plan is I need to [^\n]+\n\n/);
    expect(opt.tasks.aptpace_swe_next_action.context0).toBe(expectedContext(out, 'aptpace_swe_next_action', jsonlRows(path.join(out, 'data', 'aptpace_swe_next_action.test.jsonl'))[0], 2));
  }, 120_000);

  it('hands hostile stop sequences to the harness unchanged', async () => {
    const stops = ['yes', 'null', '~', '1:30', '0x1F', '{{', '{% raw %}', '\\$', '# not a comment', "'", '"', '\t', '\u2028', '\u2029', '\u0085', '\u0007', '\u007f', '\ufeff', '\ufffe', '\u00a0', 'é', '😀', '- item', '*', '&anchor'];
    const out = path.join(tempDir('aptpace-stops-'), 'aptpace_stops');
    const q = { ...(await fixtureQuestions()).find((x) => x.format === 'completion')!, stop: stops, split: undefined };
    const emitted = await emitSuite(nodeVfs, [q], { suite: 'aptpace_stops', outDir: out });
    expect(emitted.files.length).toBeGreaterThan(0);
    const loaded = await probe(['load', out, 'aptpace_stops']);
    const task = Object.values<any>(loaded.tasks)[0];
    expect(task.generation_kwargs.until).toEqual([...stops].sort());
    for (const [file, value] of Object.entries(loaded.yaml)) expect(value, file).toEqual(readBackYaml(readFileSync(path.join(out, file), 'utf8')).value);
  }, 120_000);

  it('ships a built-in task-name snapshot equal to the installed harness', async () => {
    const file = path.join(tempDir('aptpace-names-'), 'names.json');
    const r = await run(python, [path.join(repoRoot, 'generator', 'core', 'emit', 'harness-task-names.py'), file]);
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    const fresh = JSON.parse(readFileSync(file, 'utf8'));
    const committed = JSON.parse(readFileSync(path.join(repoRoot, 'generator', 'core', 'emit', 'harness-task-names.json'), 'utf8'));
    expect(committed.harness_version).toBe(fresh.harness_version);
    expect(committed.names).toEqual(fresh.names);
    expect(committed.names).toContain('arc_easy');
  }, 120_000);
});
