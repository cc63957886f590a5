/**
 * The reference population: models with known agentic scores that are run on the same suite
 * as the checkpoints. PACE learns the map from suite scores to agentic scores on them, so a
 * prediction for checkpoint N is only as good as this file. Read from YAML with line numbers
 * for every finding; unknown keys are errors (a misspelt key silently ignored is a wrong fit).
 */
import { LineCounter, parseDocument, isMap, isSeq, isScalar, type Node } from 'yaml';
import { type Finding, type FindingPath, findingFactory } from '../kernel/findings.js';
import { closestName } from '../kernel/suggest.js';
import { workflowFindings } from './findings.js';

const make = findingFactory(workflowFindings);

export const REFERENCE_FORMAT = 'aptpace-reference/1';
/** Below this many references nothing can be cross-validated at all (LOOCV needs a fold to fit on). */
export const MIN_REFERENCES = 4;
/**
 * Below this, leave-one-model-out intervals are in practice too wide to show skill over the
 * mean predictor (on PACE's public data, 13–17 models gave intervals containing 0 everywhere).
 */
export const RECOMMENDED_REFERENCES = 20;

/** How to run one model in lm-evaluation-harness. */
export interface HarnessModel {
  name: string;
  /** `--model` (hf, vllm, …). */
  model: string;
  /** `--model_args`. */
  model_args: string;
  /** Further lm_eval flags for this model only (e.g. `--seed 3`, `--batch_size 4`). */
  extra_args: string[];
}

export interface ReferenceModel extends HarnessModel {
  /** Agentic target scores, on the file's scale. */
  scores: Record<string, number>;
}

export interface Checkpoint extends HarnessModel {
  step?: number;
  tokens?: number;
}

/** Resources for the Slurm array job; defaults suit one GPU per harness run. */
export interface SlurmSettings {
  partition?: string;
  /** `--gres`, default gpu:1; `none` for CPU-only runs. */
  gres: string;
  cpus_per_task: number;
  /** `--time`, default 04:00:00. */
  time: string;
  /** Further `#SBATCH` lines, e.g. `--account=my-project`. */
  directives: string[];
}

/** How every job runs the harness: shared flags, the command, its environment and a setup line. */
export interface HarnessSettings {
  batch_size?: string;
  device?: string;
  extra_args: string[];
  /** The argv prefix that runs lm-eval (`[lm_eval]`, `[accelerate, launch, -m, lm_eval]`, a wrapper…). */
  command: string[];
  /** Environment variables exported before any job runs, in file order. */
  env: Array<[string, string]>;
  /** One shell line run before the jobs (e.g. `source /opt/venv/bin/activate`, `module load cuda`). */
  setup?: string;
}

export const DEFAULT_HARNESS_COMMAND = ['lm_eval'];

export interface ReferenceFile {
  format: typeof REFERENCE_FORMAT;
  scoreScale: 'fraction' | 'percent';
  suite?: { path?: string; tasks?: string };
  harness: HarnessSettings;
  slurm: SlurmSettings;
  references: ReferenceModel[];
  checkpoints: Checkpoint[];
  /** Every target any reference scores, sorted. */
  targets: string[];
}

const TOP_KEYS = ['format', 'score_scale', 'suite', 'harness', 'slurm', 'references', 'checkpoints'];
const SLURM_KEYS = ['partition', 'gres', 'cpus_per_task', 'time', 'directives'];
const SUITE_KEYS = ['path', 'tasks'];
const HARNESS_KEYS = ['command', 'env', 'setup', 'batch_size', 'device', 'extra_args'];
const REFERENCE_KEYS = ['name', 'model', 'model_args', 'extra_args', 'scores'];
const CHECKPOINT_KEYS = ['name', 'model', 'model_args', 'extra_args', 'step', 'tokens'];

/** Parses and checks a reference file. Returns `undefined` only when nothing usable was read. */
export function parseReferenceFile(text: string, file: string): { reference?: ReferenceFile; findings: Finding[] } {
  const findings: Finding[] = [];
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (node: Node | null | undefined, field: string): FindingPath => {
    const offset = node?.range?.[0];
    return { file, field, ...(offset !== undefined ? { line: lines.linePos(offset).line } : {}) };
  };
  for (const e of doc.errors) findings.push(make('reference-yaml', { file, line: e.linePos?.[0]?.line }, { reason: e.message.split('\n')[0] }));
  if (doc.errors.length) return { findings };
  const root = doc.contents;
  if (!isMap(root)) {
    findings.push(make('reference-field', { file, field: '' }, { problem: 'the file must be a mapping with a `references` list' }));
    return { findings };
  }
  const keysOf = (map: Node, allowed: string[], field: string) => {
    if (!isMap(map)) return;
    for (const pair of map.items) {
      // snake_case keys, as lm-eval's YAML; a kebab-case spelling of a known key is read the same.
      const key = (isScalar(pair.key) ? String(pair.key.value) : String(pair.key)).replace(/-/g, '_');
      if (!allowed.includes(key)) {
        findings.push(make('reference-unknown-key', at(pair.key as Node, field ? `${field}.${key}` : key), { key, suggestion: closestName(key, allowed), allowed: allowed.join(', ') }));
      }
    }
  };
  keysOf(root, TOP_KEYS, '');
  const get = (map: Node | null | undefined, key: string): Node | undefined =>
    isMap(map) ? ((map.get(key, true) ?? map.get(key.replace(/_/g, '-'), true)) as Node | undefined) : undefined;
  const str = (node: Node | undefined, field: string, required: boolean): string | undefined => {
    if (node === undefined || (isScalar(node) && node.value === null)) {
      if (required) findings.push(make('reference-field', { file, field, line: undefined }, { problem: `${field} is required` }));
      return undefined;
    }
    if (!isScalar(node) || (typeof node.value !== 'string' && typeof node.value !== 'number') || String(node.value).trim() === '') {
      findings.push(make('reference-field', at(node, field), { problem: `${field} must be a non-empty string` }));
      return undefined;
    }
    return String(node.value);
  };
  const num = (node: Node | undefined, field: string): number | undefined => {
    if (node === undefined) return undefined;
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isFinite(node.value)) {
      findings.push(make('reference-field', at(node, field), { problem: `${field} must be a finite number` }));
      return undefined;
    }
    return node.value;
  };

  const format = str(get(root, 'format'), 'format', false);
  if (format !== undefined && format !== REFERENCE_FORMAT) findings.push(make('reference-field', at(get(root, 'format'), 'format'), { problem: `format must be ${REFERENCE_FORMAT} (got ${format})` }));
  const scaleText = str(get(root, 'score_scale'), 'score_scale', false) ?? 'fraction';
  const scoreScale = scaleText === 'percent' ? 'percent' : 'fraction';
  if (scaleText !== 'percent' && scaleText !== 'fraction') findings.push(make('reference-field', at(get(root, 'score_scale'), 'score_scale'), { problem: 'score_scale must be fraction or percent' }));
  const max = scoreScale === 'percent' ? 100 : 1;

  const suiteNode = get(root, 'suite');
  keysOf(suiteNode as Node, SUITE_KEYS, 'suite');
  const suitePath = str(get(suiteNode, 'path'), 'suite.path', false);
  const suiteTasks = str(get(suiteNode, 'tasks'), 'suite.tasks', false);
  const suite = suiteNode ? { ...(suitePath ? { path: suitePath } : {}), ...(suiteTasks ? { tasks: suiteTasks } : {}) } : undefined;

  const harnessNode = get(root, 'harness');
  keysOf(harnessNode as Node, HARNESS_KEYS, 'harness');
  const stringList = (node: Node | undefined, field: string): string[] => {
    const out: string[] = [];
    if (node === undefined) return out;
    if (!isSeq(node)) findings.push(make('reference-field', at(node, field), { problem: `${field} must be a list of strings` }));
    else node.items.forEach((item, i) => {
      const v = str(item as Node, `${field}[${i}]`, true);
      if (v !== undefined) out.push(v);
    });
    return out;
  };
  const extra_args = stringList(get(harnessNode, 'extra_args'), 'harness.extra_args');
  const batch = str(get(harnessNode, 'batch_size'), 'harness.batch_size', false);
  const device = str(get(harnessNode, 'device'), 'harness.device', false);
  const commandNode = get(harnessNode, 'command');
  // A string is one program (`lm_eval`, `/opt/venv/bin/lm_eval`); a list is the argv prefix.
  const command = commandNode === undefined ? DEFAULT_HARNESS_COMMAND : isSeq(commandNode) ? stringList(commandNode, 'harness.command') : [str(commandNode, 'harness.command', true) ?? ''].filter(Boolean);
  if (commandNode !== undefined && command.length === 0 && !findings.some((f) => f.path.field?.startsWith('harness.command'))) findings.push(make('reference-field', at(commandNode, 'harness.command'), { problem: 'harness.command must name the program that runs lm-eval' }));
  const envNode = get(harnessNode, 'env');
  const env: Array<[string, string]> = [];
  if (envNode !== undefined) {
    if (!isMap(envNode)) findings.push(make('reference-field', at(envNode, 'harness.env'), { problem: 'harness.env must map variable names to values' }));
    else for (const pair of envNode.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const value = str(pair.value as Node, `harness.env.${key}`, true);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) findings.push(make('reference-field', at(pair.key as Node, `harness.env.${key}`), { problem: `harness.env: "${key}" is not a shell variable name` }));
      else if (value !== undefined) env.push([key, value]);
    }
  }
  const setup = str(get(harnessNode, 'setup'), 'harness.setup', false);
  if (setup !== undefined && /[\r\n]/.test(setup)) findings.push(make('reference-field', at(get(harnessNode, 'setup'), 'harness.setup'), { problem: 'harness.setup must be one line (chain commands with &&)' }));
  const harness: HarnessSettings = { ...(batch ? { batch_size: batch } : {}), ...(device ? { device } : {}), extra_args, command: command.length ? command : DEFAULT_HARNESS_COMMAND, env, ...(setup !== undefined && !/[\r\n]/.test(setup) ? { setup } : {}) };

  const slurmNode = get(root, 'slurm');
  keysOf(slurmNode as Node, SLURM_KEYS, 'slurm');
  const partition = str(get(slurmNode, 'partition'), 'slurm.partition', false);
  const cpus = num(get(slurmNode, 'cpus_per_task'), 'slurm.cpus_per_task');
  if (cpus !== undefined && (!Number.isInteger(cpus) || cpus < 1)) findings.push(make('reference-field', at(get(slurmNode, 'cpus_per_task'), 'slurm.cpus_per_task'), { problem: 'slurm.cpus_per_task must be a positive integer' }));
  const slurm: SlurmSettings = {
    ...(partition ? { partition } : {}),
    gres: str(get(slurmNode, 'gres'), 'slurm.gres', false) ?? 'gpu:1',
    cpus_per_task: cpus !== undefined && Number.isInteger(cpus) && cpus >= 1 ? cpus : 8,
    time: str(get(slurmNode, 'time'), 'slurm.time', false) ?? '04:00:00',
    directives: stringList(get(slurmNode, 'directives'), 'slurm.directives'),
  };

  const names = new Set<string>();
  const harnessModel = (node: Node, field: string, allowed: string[]): HarnessModel | undefined => {
    if (!isMap(node)) {
      findings.push(make('reference-field', at(node, field), { problem: `${field} must be a mapping` }));
      return undefined;
    }
    keysOf(node, allowed, field);
    const name = str(get(node, 'name'), `${field}.name`, true);
    const model = str(get(node, 'model'), `${field}.model`, true);
    const model_args = str(get(node, 'model_args'), `${field}.model_args`, true);
    if (name !== undefined && /[\u0000-\u001f\u007f]/.test(name)) {
      // A tab or newline in a name would split jobs.tsv rows and forge lines on terminals.
      findings.push(make('reference-field', at(get(node, 'name'), `${field}.name`), { problem: `${field}.name must not contain control characters (tab, newline, …)` }));
      return undefined;
    }
    if (name !== undefined) {
      if (names.has(name)) findings.push(make('reference-duplicate-name', at(get(node, 'name'), `${field}.name`), { name }));
      names.add(name);
    }
    const extra = stringList(get(node, 'extra_args'), `${field}.extra_args`);
    return name !== undefined && model !== undefined && model_args !== undefined ? { name, model, model_args, extra_args: extra } : undefined;
  };
  const list = (key: string): Node[] => {
    const node = get(root, key);
    if (node === undefined) return [];
    if (!isSeq(node)) {
      findings.push(make('reference-field', at(node, key), { problem: `${key} must be a list` }));
      return [];
    }
    return node.items as Node[];
  };

  const references: ReferenceModel[] = [];
  const refNodes = list('references');
  if (get(root, 'references') === undefined) findings.push(make('reference-field', { file, field: 'references' }, { problem: 'references is required: the models with known agentic scores' }));
  const targets = new Set<string>();
  const scoreNodes = new Map<ReferenceModel, Node>();
  // Targets a reference names, valid or not: a bad value is reported once, as out of range.
  const namedTargets = new Map<ReferenceModel, Set<string>>();
  refNodes.forEach((node, i) => {
    const field = `references[${i}]`;
    const base = harnessModel(node, field, REFERENCE_KEYS);
    const scoresNode = get(node, 'scores');
    const scores: Record<string, number> = {};
    const named = new Set<string>();
    if (!isMap(scoresNode)) {
      findings.push(make('reference-field', at(scoresNode ?? node, `${field}.scores`), { problem: `${field}.scores must map each target to the model's published score` }));
    } else {
      for (const pair of scoresNode.items) {
        const target = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const valueNode = pair.value as Node | null;
        const value = isScalar(valueNode) ? valueNode.value : undefined;
        named.add(target);
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
          findings.push(make('reference-score-range', at(valueNode ?? (pair.key as Node), `${field}.scores.${target}`), { target, value: String(value), max, scale: scoreScale }));
          continue;
        }
        scores[target] = value;
        targets.add(target);
      }
    }
    if (base) {
      const ref = { ...base, scores };
      references.push(ref);
      namedTargets.set(ref, named);
      if (isMap(scoresNode)) scoreNodes.set(ref, scoresNode);
    }
  });
  const sortedTargets = [...targets].sort();
  for (const ref of references) {
    for (const target of sortedTargets) {
      if (!namedTargets.get(ref)?.has(target)) {
        const node = scoreNodes.get(ref);
        findings.push(make('reference-missing-target', at(node, `references.${ref.name}.scores`), { model: ref.name, target }));
      }
    }
  }
  if (references.length < MIN_REFERENCES) findings.push(make('reference-too-few', { file, field: 'references' }, { count: references.length, minimum: MIN_REFERENCES }));
  else if (references.length < RECOMMENDED_REFERENCES) findings.push(make('reference-small', { file, field: 'references' }, { count: references.length, recommended: RECOMMENDED_REFERENCES }));

  const checkpoints: Checkpoint[] = [];
  list('checkpoints').forEach((node, i) => {
    const field = `checkpoints[${i}]`;
    const base = harnessModel(node, field, CHECKPOINT_KEYS);
    const step = num(get(node, 'step'), `${field}.step`);
    const tokens = num(get(node, 'tokens'), `${field}.tokens`);
    if (base) checkpoints.push({ ...base, ...(step !== undefined ? { step } : {}), ...(tokens !== undefined ? { tokens } : {}) });
  });

  return {
    reference: { format: REFERENCE_FORMAT, scoreScale, ...(suite ? { suite } : {}), harness, slurm, references, checkpoints, targets: sortedTargets },
    findings,
  };
}

/**
 * How many SVD components a population of `count` models can support in leave-one-out: each
 * fold fits on count − 1 models, and centring costs one more degree of freedom.
 */
export function supportedComponents(count: number): number {
  return Math.max(0, count - 2);
}

/** A warning when the proxy budget is far beyond what the population can estimate. */
export function budgetFindings(count: number, budget: number, file: string): Finding[] {
  const components = supportedComponents(count);
  return budget > 10 * Math.max(1, components) ? [make('reference-budget-large', { file, field: 'references' }, { budget, count, components })] : [];
}

/**
 * The references' agentic scores as a long CSV (`model,target,score,scale`) that
 * `aptpace ingest --targets` reads, so the score store's targets come from this file, on the
 * file's own scale (a `score_scale: percent` file keeps percent through fit, check and reports).
 */
export function targetsCsv(reference: ReferenceFile): string {
  const quote = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const rows = reference.references.flatMap((r) => reference.targets.filter((t) => t in r.scores).map((t) => `${quote(r.name)},${quote(t)},${r.scores[t]!},${reference.scoreScale}`));
  return `model,target,score,scale\n${rows.join('\n')}\n`;
}
