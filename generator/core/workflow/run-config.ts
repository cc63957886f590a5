/**
 * aptpace.yaml: one section per subcommand, each mirroring that subcommand's flags, so a CI job
 * runs the pipeline with `aptpace run --config aptpace.yaml`. Keys are the long flag names
 * in snake_case (`max_shortcut_gain: 10`; `max-shortcut-gain` is read the same); `inputs:` holds
 * the positional arguments. Unknown
 * sections and keys are usage errors with a "did you mean": a misspelt key silently ignored
 * would run the pipeline with a default the user did not choose.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { closestName } from '../kernel/suggest.js';

export const CONFIG_FORMAT = 'aptpace-config/1';

/** Pipeline order: `run` executes the configured stages in this order. */
export const STAGE_ORDER = ['normalize', 'build', 'audit', 'review', 'emit', 'plan', 'ingest', 'evaluate', 'fit', 'predict', 'check', 'report'] as const;
export type Stage = (typeof STAGE_ORDER)[number];

/** What the config reader needs to know of one flag (taken from the commander definition). */
export interface FlagInfo {
  /** Long name without dashes, e.g. `max-shortcut-gain`. */
  name: string;
  takesValue: boolean;
  /** Repeatable or variadic: a YAML list becomes one flag per item. */
  repeatable: boolean;
}

export interface StageConfig {
  stage: Stage;
  inputs: string[];
  flags: Array<{ name: string; value: string | true }>;
}

export class ConfigError extends Error {
  constructor(message: string, readonly file: string, readonly line?: number) {
    super(`${file}${line ? `:${line}` : ''}: ${message}`);
  }
}

type Scalar = string | number | boolean;

/**
 * Parses aptpace.yaml against the flags each stage accepts. `overrides` (`stage.flag=value`,
 * from `--set`) replace the file's value for that flag.
 */
export function parseRunConfig(text: string, file: string, flagsByStage: ReadonlyMap<Stage, FlagInfo[]>, overrides: string[] = []): StageConfig[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (node: unknown) => {
    const offset = (node as Node | undefined)?.range?.[0];
    return offset === undefined ? undefined : lines.linePos(offset).line;
  };
  if (doc.errors.length) throw new ConfigError(`not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`, file, doc.errors[0]!.linePos?.[0]?.line);
  const root = doc.contents;
  if (!isMap(root)) throw new ConfigError('the config must be a mapping of stage names to their flags', file);
  const stages = new Map<Stage, { inputs: string[]; values: Map<string, Scalar | Scalar[]> }>();
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (key === 'format') {
      const value = isScalar(pair.value) ? pair.value.value : undefined;
      if (value !== CONFIG_FORMAT) throw new ConfigError(`format must be ${CONFIG_FORMAT}`, file, lineOf(pair.value));
      continue;
    }
    if (!(STAGE_ORDER as readonly string[]).includes(key)) {
      const hint = closestName(key, STAGE_ORDER);
      throw new ConfigError(`unknown stage "${key}"${hint ? ` (did you mean "${hint}"?)` : ''}; stages: ${STAGE_ORDER.join(', ')}`, file, lineOf(pair.key));
    }
    const stage = key as Stage;
    const flags = flagsByStage.get(stage) ?? [];
    const section = pair.value as Node | null;
    const entry = { inputs: [] as string[], values: new Map<string, Scalar | Scalar[]>() };
    stages.set(stage, entry);
    if (section === null || (isScalar(section) && section.value === null)) continue;
    if (!isMap(section)) throw new ConfigError(`${stage}: must be a mapping of flags`, file, lineOf(section));
    for (const item of section.items) {
      // Keys are snake_case like every config file here (`model_file:` for --model-file); kebab-case is accepted too.
      const name = (isScalar(item.key) ? String(item.key.value) : String(item.key)).replace(/_/g, '-');
      const value = item.value as Node | null;
      if (name === 'inputs') {
        const list = isSeq(value) ? value.items : [value];
        entry.inputs = list.map((v) => {
          if (!isScalar(v) || typeof v.value !== 'string') throw new ConfigError(`${stage}.inputs must be a list of paths`, file, lineOf(v));
          return inputPath(v.value, stage, file, lineOf(v));
        });
        continue;
      }
      const flag = flags.find((f) => f.name === name);
      if (!flag) {
        const hint = closestName(name, [...flags.map((f) => f.name), 'inputs']);
        throw new ConfigError(`${stage}: unknown flag "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}`, file, lineOf(item.key));
      }
      entry.values.set(name, scalarOrList(value, `${stage}.${name}`, flag, file, lineOf(value)));
    }
  }
  for (const override of overrides) {
    const m = /^([a-z]+)\.([a-z0-9_-]+)=(.*)$/s.exec(override);
    if (!m) throw new ConfigError(`--set ${override}: expected stage.flag=value`, '--set');
    const [, stageName, given, raw] = m as unknown as [string, string, string, string];
    const name = given.replace(/_/g, '-');
    if (!(STAGE_ORDER as readonly string[]).includes(stageName)) throw new ConfigError(`--set ${override}: unknown stage "${stageName}"`, '--set');
    const stage = stageName as Stage;
    const flag = (flagsByStage.get(stage) ?? []).find((f) => f.name === name);
    if (!flag && name !== 'inputs') {
      const hint = closestName(name, (flagsByStage.get(stage) ?? []).map((f) => f.name));
      throw new ConfigError(`--set ${override}: unknown flag "${name}" for ${stage}${hint ? ` (did you mean "${hint}"?)` : ''}`, '--set');
    }
    const entry = stages.get(stage) ?? { inputs: [], values: new Map() };
    stages.set(stage, entry);
    if (name === 'inputs') entry.inputs = raw.split(',').filter(Boolean).map((p) => inputPath(p, stage, '--set'));
    else entry.values.set(name, flag!.takesValue ? raw : raw !== 'false');
  }
  return STAGE_ORDER.filter((s) => stages.has(s)).map((stage) => {
    const entry = stages.get(stage)!;
    const flags: StageConfig['flags'] = [];
    for (const [name, value] of entry.values) {
      const info = (flagsByStage.get(stage) ?? []).find((f) => f.name === name)!;
      if (!info.takesValue) {
        if (value === true) flags.push({ name, value: true });
        continue;
      }
      for (const v of Array.isArray(value) ? value : [value]) flags.push({ name, value: String(v) });
    }
    return { stage, inputs: entry.inputs, flags };
  });
}

function scalarOrList(node: Node | null, field: string, flag: FlagInfo, file: string, line?: number): Scalar | Scalar[] {
  const scalar = (n: unknown): Scalar => {
    if (!isScalar(n) || !['string', 'number', 'boolean'].includes(typeof n.value)) throw new ConfigError(`${field} must be a string, number or boolean`, file, line);
    return n.value as Scalar;
  };
  if (isSeq(node)) {
    if (!flag.repeatable) throw new ConfigError(`${field} takes one value, not a list`, file, line);
    return node.items.map(scalar);
  }
  const value = scalar(node);
  if (!flag.takesValue && typeof value !== 'boolean') throw new ConfigError(`${field} is a switch: use true or false`, file, line);
  return value;
}

/**
 * An `inputs:` entry is a path, never a flag: `--force` there would reach the command as an
 * option. A path that really starts with `-` is written `./-name`.
 */
function inputPath(value: string, stage: string, file: string, line?: number): string {
  if (value.startsWith('-')) throw new ConfigError(`${stage}.inputs: "${value}" starts with "-" and would be read as a flag; flags go under ${stage} as "name: value" (a path starting with "-" is written ./${value})`, file, line);
  return value;
}

/** The argv a stage runs with: `<stage> <inputs…> --flag value …`. */
export function stageArgv(config: StageConfig): string[] {
  const argv: string[] = [config.stage, ...config.inputs];
  for (const f of config.flags) argv.push(`--${f.name}`, ...(f.value === true ? [] : [f.value]));
  return argv;
}
