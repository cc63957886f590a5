/** What the ingester needs from one `results_<ts>.json`, tolerant of 0.4.0 → 0.4.13 shapes. */
export interface MetricKey {
  metric: string;
  filter: string;
}

export interface TaskResult {
  /** `<metric>,<filter>` keys in the order the harness wrote them (stderr excluded). */
  metrics: MetricKey[];
  /** Aggregate value per `<metric>,<filter>` (numbers only). */
  aggregates: Record<string, number>;
  /** Filter names in `filter_list` order (config), or from the metric keys. */
  filters: string[];
  /** Metric → aggregation name when the config states it as a string. */
  aggregation: Record<string, string>;
  higherIsBetter: Record<string, boolean>;
  outputType?: string;
  nSamples?: { original?: number; effective?: number };
  taskHash?: string;
  version?: unknown;
  nShot?: unknown;
  /** metric_list options per metric (ignore_case, regexes_to_ignore, …). */
  metricOptions: Record<string, Record<string, unknown>>;
  /** The task scores through its own `process_results` (a `!function`), not the harness's built-in scoring. */
  customProcessResults: boolean;
  /** Every reported metric is `bypass`: a `--predict_only` run, no scores. */
  predictOnly: boolean;
}

export interface RunInfo {
  /** `lm_eval_version` (≥0.4.9) or a description of what the shape says. */
  harnessVersion: string;
  /** `model_name` (≥0.4.3), else the pretrained/model/path… value in `config.model_args`. */
  modelName?: string;
  modelNameSanitized?: string;
  /** config.model_args as a string (≤0.4.9 form), used to name ≤0.4.2 sample files. */
  modelArgsString?: string;
  leafTasks: Map<string, TaskResult>;
  groups: string[];
  date?: number;
  limit?: unknown;
  seeds: Record<string, unknown>;
  gitHash?: unknown;
}

const MODEL_KEYS = ['peft', 'delta', 'pretrained', 'model', 'path', 'engine'];
const NON_METRIC = new Set(['alias', 'name', 'sample_len', 'sample_count', ' ']);

/** Splits `<metric>,<filter>` on the last comma (names may themselves contain commas). */
export function splitMetricKey(key: string): MetricKey | undefined {
  const cut = key.lastIndexOf(',');
  if (cut <= 0) return undefined;
  return { metric: key.slice(0, cut), filter: key.slice(cut + 1) };
}

export function isResultsJson(json: unknown): json is Record<string, any> {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && typeof (json as any).results === 'object' && (json as any).results !== null && ('config' in (json as any) || 'configs' in (json as any) || 'versions' in (json as any));
}

export function parseResults(json: Record<string, any>): RunInfo {
  const results: Record<string, Record<string, unknown>> = json.results ?? {};
  const subtasks: Record<string, string[]> = json.group_subtasks ?? {};
  const groupNames = new Set<string>([...Object.keys(json.groups ?? {}), ...Object.entries(subtasks).filter(([, c]) => Array.isArray(c) && c.length > 0).map(([g]) => g)]);
  const configs: Record<string, any> = json.configs ?? {};
  const leafTasks = new Map<string, TaskResult>();
  for (const [task, entry] of Object.entries(results)) {
    if (groupNames.has(task) || !entry || typeof entry !== 'object') continue;
    const metrics: MetricKey[] = [];
    const aggregates: Record<string, number> = {};
    for (const [key, value] of Object.entries(entry)) {
      if (NON_METRIC.has(key)) continue;
      const mk = splitMetricKey(key);
      if (!mk || mk.metric.endsWith('_stderr')) continue;
      metrics.push(mk);
      if (typeof value === 'number') aggregates[key] = value;
    }
    const cfg = configs[task] ?? {};
    const filters: string[] = Array.isArray(cfg.filter_list)
      ? cfg.filter_list.map((f: any) => String(f?.name ?? ''))
      : [...new Set(metrics.map((m) => m.filter))];
    const aggregation: Record<string, string> = {};
    const metricOptions: Record<string, Record<string, unknown>> = {};
    for (const m of Array.isArray(cfg.metric_list) ? cfg.metric_list : []) {
      if (typeof m?.metric === 'string' && typeof m?.aggregation === 'string') aggregation[m.metric] = m.aggregation;
      if (typeof m?.metric === 'string') metricOptions[m.metric] = { ...m };
    }
    const ns = json['n-samples']?.[task];
    leafTasks.set(task, {
      metrics,
      aggregates,
      filters,
      aggregation,
      higherIsBetter: json.higher_is_better?.[task] ?? {},
      outputType: typeof cfg.output_type === 'string' ? cfg.output_type : undefined,
      nSamples: ns && typeof ns === 'object' ? { original: num(ns.original), effective: num(ns.effective) } : undefined,
      taskHash: typeof json.task_hashes?.[task] === 'string' ? json.task_hashes[task] : undefined,
      version: json.versions?.[task],
      nShot: json['n-shot']?.[task],
      metricOptions,
      customProcessResults: cfg.process_results !== undefined && cfg.process_results !== null,
      predictOnly: metrics.length > 0 && metrics.every((k) => k.metric === 'bypass'),
    });
  }
  const config = json.config ?? {};
  const modelArgs = config.model_args;
  const modelArgsString = typeof modelArgs === 'string' ? modelArgs : undefined;
  return {
    harnessVersion: harnessVersion(json),
    modelName: typeof json.model_name === 'string' && json.model_name !== '' ? json.model_name : modelFromArgs(modelArgs),
    modelNameSanitized: typeof json.model_name_sanitized === 'string' && json.model_name_sanitized !== '' ? json.model_name_sanitized : undefined,
    modelArgsString,
    leafTasks,
    groups: [...groupNames].sort(),
    date: num(json.date),
    limit: config.limit ?? null,
    seeds: { random_seed: config.random_seed, numpy_seed: config.numpy_seed, torch_seed: config.torch_seed, fewshot_seed: config.fewshot_seed },
    gitHash: json.git_hash ?? null,
  };
}

/** The harness's own model-name rule (evaluation_tracker): first of peft, delta, pretrained, model, path, engine. */
export function modelFromArgs(modelArgs: unknown): string | undefined {
  if (modelArgs && typeof modelArgs === 'object') {
    for (const k of MODEL_KEYS) {
      const v = (modelArgs as Record<string, unknown>)[k];
      if (typeof v === 'string' && v !== '') return v;
    }
    return undefined;
  }
  if (typeof modelArgs === 'string') {
    const parts = modelArgs.split(',').map((p) => p.trim());
    for (const k of MODEL_KEYS) {
      const hit = parts.find((p) => p.startsWith(`${k}=`));
      if (hit && hit.length > k.length + 1) return hit.slice(k.length + 1);
    }
  }
  return undefined;
}

/** The harness's folder-name sanitiser: `re.sub(r"[\"<>:/|\\?*\[\]]+", "__", name)`. */
export function sanitizeModelName(name: string): string {
  return name.replace(/["<>:/|\\?*[\]]+/g, '__');
}

function harnessVersion(json: Record<string, any>): string {
  if (typeof json.lm_eval_version === 'string') return json.lm_eval_version;
  if ('task_hashes' in json) return '0.4.3-0.4.8';
  if ('date' in json) return '0.4.2';
  return '0.4.0-0.4.1';
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
