import type { Finding, FindingPath } from '../kernel/findings.js';
import { findingFactory } from '../kernel/findings.js';
import type { CompletionQuestion, LengthBucket, McqQuestion, Question } from '../questions/types.js';
import { LENGTH_BUCKETS } from '../questions/buckets.js';
import { emitFindings, type EmitFindingCode } from './findings.js';
import { kindOf, TASK_KINDS, type DocRow, type McqScoring, type TaskKind, type TaskKindSpec } from './kinds/index.js';
import { METRICS, METRIC_ORDER, EXACT_MATCH_OPTIONS, ROUGE_TYPES, type MetricName } from './metrics.js';
import { isValidHarnessName, type BuiltinTaskNames } from './names.js';
import { areaOf, languageOf, planGroups, treeOrder, type Area } from './groups.js';
import { FunctionRef, type TaskConfigSubset } from './task-config.js';
import { roundTrips, toHarnessYaml, validateConfig } from './yaml-io.js';
import type { SuiteTemplates } from './templates.js';

const make = findingFactory(emitFindings);

/** Suite format version written into every task's `metadata.version` (a string: the harness keeps its text). */
export const SUITE_FORMAT_VERSION = '1.0';
export const MANIFEST_FILE = 'aptpace-manifest.json';
/** Oldest harness whose loader handles what we emit (`custom_dataset`, tasks-only include bases). */
export const MINIMUM_HARNESS = '0.4.9';
/** Versions whose real harness the tests ran. */
export const TESTED_HARNESS = ['0.4.12', '0.4.13'] as const;
export const DEFAULT_HARNESS_VERSION = '0.4.13';
export const DEFAULT_NUM_FEWSHOT = 3;

export interface PlanOptions {
  suite: string;
  scoring: McqScoring;
  /** Few-shot pool: explicit questions, or `split` = the input questions marked `split: fewshot`. */
  fewshot?: Question[] | 'split';
  numFewshot: number;
  harnessVersion: string;
  /** Prepended to every question's task name, so two suites of the same kinds can share a tree. */
  taskPrefix?: string;
  /** Group scores weighted by document count instead of the macro average over tasks. */
  weightBySize?: boolean;
}

export interface PlannedTask {
  task: string;
  kind: TaskKind;
  area: Area;
  language: string;
  docs: number;
  fewshot: number;
  buckets: Record<LengthBucket, number>;
}

export interface SuitePlan {
  /** Relative path → file text, sorted by path; empty when any error was found. */
  files: Map<string, string>;
  findings: Finding[];
  tasks: PlannedTask[];
}

interface TaskBuild {
  task: string;
  kind: TaskKind;
  area: Area;
  language: string;
  spec: TaskKindSpec<any>;
  test: Question[];
  pool: Question[];
  shots: number;
}

/**
 * Compiles questions into the files of one harness task suite. Pure: no I/O. Any
 * error-severity finding leaves `files` empty, so a caller never writes half a suite.
 */
export function planSuite(questions: Question[], options: PlanOptions, builtins: BuiltinTaskNames, templates: SuiteTemplates): SuitePlan {
  const findings: Finding[] = [];
  const fail = (): SuitePlan => ({ files: new Map(), findings, tasks: [] });
  const recordOf = new Map<Question, number>();
  questions.forEach((q, i) => recordOf.set(q, i));
  const at = (q: Question, field?: string): FindingPath => ({ record: recordOf.get(q), field });

  checkHarnessVersion(options.harnessVersion, builtins, findings);
  checkName('suite', options.suite, builtins, findings);

  // Questions the builder set aside for few-shot are never evaluated.
  const markedFewshot = questions.filter((q) => q.split === 'fewshot');
  const test = questions.filter((q) => q.split !== 'fewshot');
  if (markedFewshot.length) findings.push(make('emit-fewshot-split-excluded', {}, { count: markedFewshot.length, used: options.fewshot === 'split' }));
  const pool = options.fewshot === 'split' ? markedFewshot : (options.fewshot ?? []);

  if (test.length === 0) {
    findings.push(make('emit-no-questions', {}, { reason: questions.length ? 'all-fewshot' : 'empty' }));
    return fail();
  }

  // Ids key the logged documents, the score matrix and --samples: one question, one id.
  // (A pool question sharing a test question's id is a leak, handled in selectPool.)
  for (const set of [test, pool]) {
    const seen = new Map<string, Question>();
    for (const q of set) {
      const first = seen.get(q.id);
      if (first) findings.push(make('emit-duplicate-id', at(q, 'id'), { id: q.id, firstRecord: recordOf.get(first) }));
      else seen.set(q.id, q);
    }
  }
  for (const q of test) {
    if (q.build.fewshot_ids?.includes(q.id)) findings.push(make('emit-fewshot-self-reference', at(q, 'build.fewshot_ids'), { id: q.id }));
  }

  const builds: TaskBuild[] = [];
  const prefix = options.taskPrefix ?? '';
  // With more than one language, every task name carries its language (`…_en`, `…_zh`): one
  // task never mixes languages, and shots are drawn from the pool of the same language.
  const multiLanguage = new Set(test.map(languageOf)).size > 1;
  const taskName = (q: Question) => {
    const suffix = `_${languageOf(q)}`;
    return prefix + q.task + (multiLanguage && !q.task.endsWith(suffix) ? suffix : '');
  };
  const byTask = groupBy(test, taskName);
  const poolByTask = groupBy(pool, taskName);
  for (const [task, taskQuestions] of [...byTask].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!checkName('task', task, builtins, findings)) continue;
    if (task === options.suite) {
      findings.push(make('emit-name-duplicate', {}, { kind: 'task', name: task, other: 'the suite (group) name' }));
      continue;
    }
    const kinds = [...new Set(taskQuestions.map((q) => kindOf(q, options.scoring)))].sort();
    if (kinds.length > 1) {
      findings.push(make('emit-task-mixed', {}, { task, field: 'format/metric', values: kinds }));
      continue;
    }
    const kind = kinds[0]!;
    const spec: TaskKindSpec<any> = TASK_KINDS[kind];
    let ok = true;
    for (const q of taskQuestions) ok = reportProblems(spec, q, at, findings) && ok;
    if (!ok) continue;
    if (spec.format === 'completion') {
      const distinct = new Set(taskQuestions.map((q) => JSON.stringify([...(q as CompletionQuestion).stop].sort())));
      if (distinct.size > 1) {
        const union = spec.config(taskQuestions).generation_kwargs?.until ?? [];
        findings.push(make('emit-stop-sequences-differ', {}, { task, union }));
      }
    }
    const taskPool = selectPool(task, kind, spec, taskQuestions, poolByTask.get(task) ?? [], options.scoring, at, findings);
    const shots = taskPool.length ? Math.min(options.numFewshot, taskPool.length) : 0;
    if (options.fewshot !== undefined && taskPool.length === 0) findings.push(make('emit-fewshot-none', {}, { task }));
    else if (options.fewshot !== undefined && options.numFewshot > taskPool.length) {
      findings.push(make('emit-fewshot-short', {}, { task, available: taskPool.length, requested: options.numFewshot }));
    }
    const alreadyShot = taskQuestions.filter((q) => (q.build.fewshot_ids?.length ?? 0) > 0).length;
    if (shots > 0 && alreadyShot > 0) findings.push(make('emit-fewshot-doubled', {}, { task, count: alreadyShot, shots }));
    const areas = [...new Set(taskQuestions.map(areaOf))].sort();
    if (areas.length > 1) {
      findings.push(make('emit-task-mixed', {}, { task, field: 'area (kind domain)', values: areas }));
      continue;
    }
    builds.push({ task, kind, area: areas[0]!, language: languageOf(taskQuestions[0]!), spec, test: sortById(taskQuestions), pool: shots ? sortById(taskPool) : [], shots });
  }
  for (const [task, unused] of poolByTask) {
    if (!byTask.has(task)) findings.push(make('emit-fewshot-unused', {}, { task, count: unused.length }));
  }
  if (findings.some((f) => f.severity === 'error')) return fail();
  if (builds.length === 0) {
    findings.push(make('emit-no-questions', {}, { reason: 'empty' }));
    return fail();
  }

  const files = new Map<string, string>();
  const yamlFiles: Array<{ file: string; config: object; schema: 'task-file' | 'group' }> = [];
  const merged: Array<{ file: string; config: object }> = [];
  const bases = new Map<TaskKind, TaskConfigSubset>();

  for (const b of builds) {
    const withShots = b.shots > 0;
    const testFile = `data/${b.task}.test.jsonl`;
    const fewshotFile = `data/${b.task}.fewshot.jsonl`;
    files.set(testFile, toJsonlRows(b.test.map((q) => b.spec.document(q, withShots))));
    if (withShots) files.set(fewshotFile, toJsonlRows(b.pool.map((q) => b.spec.document(q, true))));

    const { generation_kwargs, ...kindConfig } = b.spec.config(b.test);
    const baseName = `_${options.suite}_${b.kind}_template_yaml`;
    if (!bases.has(b.kind)) bases.set(b.kind, baseConfig(kindConfig));
    const taskFile: TaskConfigSubset = {
      include: baseName,
      task: b.task,
      dataset_kwargs: { data_files: withShots ? { test: testFile, fewshot: fewshotFile } : { test: testFile } },
      // 0 and not absent: a CLI --num_fewshot cannot then pull shots from the test split.
      num_fewshot: b.shots,
    };
    if (withShots) {
      // Both spellings: before 0.4.13 the top-level split overrode the nested one.
      taskFile.fewshot_split = 'fewshot';
      taskFile.fewshot_config = { sampler: 'first_n', split: 'fewshot', doc_to_target: 'shot_target' };
    }
    if (generation_kwargs) taskFile.generation_kwargs = generation_kwargs;
    yamlFiles.push({ file: `${b.task}.yaml`, config: taskFile, schema: 'task-file' });
    const { include: _include, ...own } = taskFile;
    merged.push({ file: `${b.task}.yaml`, config: { ...bases.get(b.kind)!, ...own } });
  }
  for (const [kind, base] of bases) yamlFiles.push({ file: `_${options.suite}_${kind}_template_yaml`, config: base, schema: 'task-file' });

  const usedMetrics = METRIC_ORDER.filter((m) => builds.some((b) => b.spec.metrics.includes(m)));
  const weightBySize = options.weightBySize ?? false;
  const groups = planGroups(options.suite, builds.map((b) => ({ task: b.task, area: b.area, language: b.language })), multiLanguage, weightBySize, SUITE_FORMAT_VERSION);
  const taskNames = new Set(builds.map((b) => b.task));
  for (const g of groups) {
    if (g.name === options.suite) continue;
    if (!checkName('suite', g.name, builtins, findings)) continue;
    if (taskNames.has(g.name)) findings.push(make('emit-name-duplicate', {}, { kind: 'task', name: g.name, other: `the subgroup ${g.name}` }));
  }
  for (const g of groups) yamlFiles.push({ file: `_${g.name}.yaml`, config: g.config, schema: 'group' });

  for (const { file, config, schema } of yamlFiles) {
    const problems = validateConfig(schema, config);
    for (const p of problems) findings.push(make('emit-invalid-config', { file }, { file, schema, at: p.at, problem: p.problem }));
    const text = toHarnessYaml(config);
    if (!roundTrips(config, text)) findings.push(make('emit-yaml-roundtrip', { file }, { file }));
    files.set(file, text);
  }
  for (const { file, config } of merged) {
    for (const p of validateConfig('task', config)) findings.push(make('emit-invalid-config', { file }, { file, schema: 'task (after include)', at: p.at, problem: p.problem }));
  }
  if (findings.some((f) => f.severity === 'error')) return fail();

  const tasks = builds.map((b) => ({ task: b.task, kind: b.kind, area: b.area, language: b.language, docs: b.test.length, fewshot: b.shots, buckets: bucketCounts(b.test) }));
  const processResults = [...new Map(builds.flatMap((b) => (b.spec.processResults ? [[b.spec.processResults.name, { ...b.spec.processResults, title: b.spec.title }] as const] : []))).values()];
  files.set(
    'utils.py',
    templates.utils({
      suite: options.suite,
      needsExactMatch: processResults.some((p) => p.exactMatch),
      needsRouge: processResults.some((p) => p.rouge),
      exactMatch: EXACT_MATCH_OPTIONS,
      rougeTypes: [...ROUGE_TYPES],
      processResults,
      // Scorers with their own block (tool calls, multi-select): only when a task uses them.
      utilsBlocks: {
        tool_call: builds.some((b) => b.spec.utilsBlock === 'tool_call'),
        multi_select: builds.some((b) => b.spec.utilsBlock === 'multi_select'),
        // The headline of exact-match-only tasks, scored through the built-in exact_match.
        headline_exact_match: builds.some((b) => b.spec.outputType === 'generate_until' && !b.spec.processResults && !b.spec.utilsBlock),
      },
    }),
  );
  files.set('README.md', templates.readme({ ...readmeContext(options, tasks, builds, usedMetrics), weightBySize, multiLanguage, groups: treeOrder(groups).map((g) => ({ name: g.name, title: g.title, children: g.children.map((c) => `\`${c}\``).join(', '), leaves: g.leaves.length })) }));
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))), findings, tasks };
}

function baseConfig(kindConfig: TaskConfigSubset): TaskConfigSubset {
  return {
    custom_dataset: new FunctionRef('utils.load'),
    test_split: 'test',
    doc_to_text: 'query',
    // Rows carry their own separators (see kinds/shared.ts), so the harness adds none.
    target_delimiter: '',
    fewshot_delimiter: '\n\n',
    ...kindConfig,
    metadata: { version: SUITE_FORMAT_VERSION },
  };
}

function reportProblems(spec: TaskKindSpec<any>, q: Question, at: (q: Question, field?: string) => FindingPath, findings: Finding[]): boolean {
  const problems = spec.check(q as McqQuestion & CompletionQuestion);
  for (const p of problems) findings.push(make(p.code, at(q, p.field), p.args));
  return problems.length === 0;
}

function selectPool(
  task: string,
  kind: TaskKind,
  spec: TaskKindSpec<any>,
  testQuestions: Question[],
  candidates: Question[],
  scoring: McqScoring,
  at: (q: Question, field?: string) => FindingPath,
  findings: Finding[],
): Question[] {
  const testIds = new Set(testQuestions.map((q) => q.id));
  const testQueries = new Map(testQuestions.map((q) => [spec.document(q, false).query as string, q.id]));
  const out: Question[] = [];
  for (const q of candidates) {
    if (kindOf(q, scoring) !== kind) {
      findings.push(make('emit-task-mixed', at(q), { task, field: 'few-shot format/metric', values: [kind, kindOf(q, scoring)].sort() }));
      continue;
    }
    if (!reportProblems(spec, q, at, findings)) continue;
    if (testIds.has(q.id)) {
      findings.push(make('emit-fewshot-overlap', at(q, 'id'), { id: q.id, testId: q.id, reason: 'same id' }));
      continue;
    }
    const sameQuery = testQueries.get(spec.document(q, false).query as string);
    if (sameQuery !== undefined) {
      findings.push(make('emit-fewshot-overlap', at(q, 'prompt'), { id: q.id, testId: sameQuery, reason: 'same prompt' }));
      continue;
    }
    out.push(q);
  }
  return out;
}

function checkHarnessVersion(version: string, builtins: BuiltinTaskNames, findings: Finding[]): void {
  if (compareVersions(version, MINIMUM_HARNESS) < 0) {
    findings.push(make('emit-harness-version-unsupported', {}, { version, minimum: MINIMUM_HARNESS }));
    return;
  }
  if (!TESTED_HARNESS.some((v) => compareVersions(version, v) === 0)) findings.push(make('emit-harness-version-untested', {}, { version, tested: TESTED_HARNESS.join(', ') }));
  if (compareVersions(version, builtins.harness_version) !== 0) findings.push(make('emit-builtin-names-version', {}, { snapshot: builtins.harness_version, version }));
}

function checkName(kind: 'suite' | 'task', name: string, builtins: BuiltinTaskNames, findings: Finding[]): boolean {
  if (!isValidHarnessName(name)) {
    findings.push(make('emit-name-invalid', {}, { kind, name }));
    return false;
  }
  if (builtins.names.has(name)) {
    findings.push(make('emit-name-builtin', {}, { kind, name, harnessVersion: builtins.harness_version }));
    return false;
  }
  return true;
}

/** Compares dotted numeric versions (`0.4.13` vs `0.4.9`); suffixes such as `.dev0` are ignored. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => v.split('.').map((p) => Number.parseInt(p, 10)).filter((n) => Number.isFinite(n));
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < Math.max(pa.length, pb.length, 3); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

function sortById<Q extends Question>(qs: Q[]): Q[] {
  return [...qs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function toJsonlRows(rows: DocRow[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}

function bucketCounts(qs: Question[]): Record<LengthBucket, number> {
  const out = Object.fromEntries(LENGTH_BUCKETS.map((b) => [b.bucket, 0])) as Record<LengthBucket, number>;
  for (const q of qs) out[q.length_bucket] = (out[q.length_bucket] ?? 0) + 1;
  return out;
}

function readmeContext(options: PlanOptions, tasks: PlannedTask[], builds: TaskBuild[], metrics: MetricName[]) {
  const total = tasks.reduce((s, t) => s + t.docs, 0);
  const bucketNames = LENGTH_BUCKETS.map((b) => b.bucket);
  const firstTask = tasks[0]!;
  return {
    suite: options.suite,
    harnessVersion: options.harnessVersion,
    scoring: options.scoring,
    total,
    taskCount: tasks.length,
    bucketNames,
    tasks: tasks.map((t, i) => ({
      ...t,
      title: builds[i]!.spec.title,
      outputType: builds[i]!.spec.outputType,
      metrics: builds[i]!.spec.metrics.join(', '),
      bucketCells: bucketNames.map((b) => t.buckets[b]),
    })),
    bucketTotals: bucketNames.map((b) => tasks.reduce((s, t) => s + t.buckets[b], 0)),
    metrics: metrics.map((m) => ({ name: m, ...METRICS[m] })),
    anyFewshot: tasks.some((t) => t.fewshot > 0),
    samplesExample: JSON.stringify({ [firstTask.task]: [...Array(Math.min(3, firstTask.docs)).keys()] }),
    firstTask: firstTask.task,
  };
}
