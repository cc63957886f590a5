/**
 * Turns the flags fit / evaluate / predict share into typed settings. Bad values raise
 * SettingsError, which the CLI maps to a usage error (exit 2).
 */
import type { Vfs } from '../../kernel/vfs.js';
import type { ScoreMatrix } from '../../logs/matrix.js';
import { parseConfigs, parseGrid, defaultGrid, validateConfig } from './config.js';
import type { Grid } from '../pipeline.js';
import { defaultOptions, fallbackConfig, type PaceConfig, type PaceOptions } from '../types.js';
import type { PaceInputSpec } from '../inputs/inputs.js';
import { didYouMean } from '../../kernel/suggest.js';

export class SettingsError extends Error {}

export interface SharedFlags {
  store?: string;
  sources?: string[];
  targets?: string[];
  mapping?: string;
  targetNames?: string;
  target?: string[];
  config?: string;
  budget?: string;
  q?: string;
  m?: string;
  ncH?: string;
  ncD?: string;
  bootstrap?: string;
  alpha?: string;
  seed?: string;
  svdScope?: string;
  minModelCoverage?: string;
  minCompleteShare?: string;
  duplicates?: string;
  pool?: string;
  excludeBenchmark?: string[];
}

function number(name: string, raw: string | undefined, integer = false): number | undefined {
  if (raw === undefined) return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || (integer && !Number.isInteger(v))) throw new SettingsError(`--${name} must be ${integer ? 'an integer' : 'a number'} (got ${raw})`);
  return v;
}

export function inputSpec(flags: SharedFlags): PaceInputSpec {
  if (!flags.store && !flags.sources?.length) throw new SettingsError('give the source scores: --store DIR (from ingest) or --sources PATH…');
  const dup = flags.duplicates ?? 'error';
  if (dup !== 'error' && dup !== 'first' && dup !== 'last') throw new SettingsError(`--duplicates must be error, first or last (got ${dup})`);
  return {
    duplicates: dup,
    ...(flags.store ? { store: flags.store } : {}),
    ...(flags.sources ? { sources: flags.sources } : {}),
    ...(flags.targets ? { targets: flags.targets } : {}),
    ...(flags.mapping ? { mapping: flags.mapping } : {}),
    ...(flags.targetNames ? { targetNames: flags.targetNames } : {}),
  };
}

export const MAX_BOOTSTRAP = 100_000;

export function paceOptions(flags: SharedFlags): PaceOptions {
  const scope = flags.svdScope ?? defaultOptions.svdScope;
  if (scope !== 'fold' && scope !== 'all') throw new SettingsError(`--svd-scope must be fold or all (got ${scope})`);
  const bootstrap = number('bootstrap', flags.bootstrap, true) ?? defaultOptions.bootstrap;
  // Each replicate refits every target: beyond this the run would not finish, or its arrays not fit in memory.
  if (bootstrap < 0 || bootstrap > MAX_BOOTSTRAP) throw new SettingsError(`--bootstrap must be between 0 and ${MAX_BOOTSTRAP} (got ${flags.bootstrap})`);
  const alpha = number('alpha', flags.alpha) ?? defaultOptions.alpha;
  if (!(alpha > 0)) throw new SettingsError('--alpha must be > 0');
  return { bootstrap, alpha, seed: flags.seed ?? defaultOptions.seed, svdScope: scope };
}

/**
 * Per-target configs: the config file, then any flag overrides applied to every target.
 * `knownTargets` are all targets the inputs hold (not only the selected ones): a config key that
 * names none of them is a usage error, since its target would silently get the defaults.
 */
export async function targetConfigs(vfs: Vfs, flags: SharedFlags, targetNames: string[], knownTargets: string[] = targetNames): Promise<Record<string, PaceConfig>> {
  let fromFile: Record<string, PaceConfig> = {};
  if (flags.config) {
    const { configs, errors } = parseConfigs(await vfs.readText(flags.config));
    if (errors.length) throw new SettingsError(`--config ${flags.config}: ${errors.join('; ')}`);
    const unknown = Object.keys(configs).filter((k) => !knownTargets.includes(k));
    if (unknown.length)
      throw new SettingsError(
        `--config ${flags.config}: ${unknown.map((k) => `${k} is not a target of the inputs${didYouMean(k, knownTargets)}`).join('; ')} (targets: ${[...knownTargets].sort().join(', ') || 'none'})`,
      );
    fromFile = configs;
  }
  const overrides: Partial<PaceConfig> = {};
  const set = <K extends keyof PaceConfig>(k: K, v: number | undefined) => {
    if (v !== undefined) overrides[k] = v as PaceConfig[K];
  };
  set('budget', number('budget', flags.budget, true));
  set('q', number('q', flags.q));
  set('m', number('m', flags.m));
  set('ncH', number('nc-h', flags.ncH, true));
  set('ncD', number('nc-d', flags.ncD, true));
  const out: Record<string, PaceConfig> = {};
  for (const t of targetNames) {
    const c = { ...(fromFile[t] ?? fallbackConfig), ...overrides };
    const problem = validateConfig(c);
    if (problem) throw new SettingsError(`target ${t}: ${problem}`);
    out[t] = c;
  }
  return out;
}

export async function gridFrom(vfs: Vfs, file: string | undefined): Promise<Grid> {
  if (!file) return defaultGrid;
  const { grid, error } = parseGrid(await vfs.readText(file));
  if (!grid) throw new SettingsError(`--grid ${file}: ${error}`);
  return grid;
}

export function minCoverage(flags: SharedFlags): number | undefined {
  const v = number('min-model-coverage', flags.minModelCoverage);
  if (v !== undefined && !(v >= 0 && v <= 1)) throw new SettingsError('--min-model-coverage must be in [0, 1]');
  return v;
}

/** `--min-score swe-bench=30` (target's own scale). */
export function parseThresholds(raw: string[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of raw ?? []) {
    const eq = item.lastIndexOf('=');
    const value = Number(item.slice(eq + 1));
    if (eq <= 0 || !Number.isFinite(value)) throw new SettingsError(`--min-score expects TARGET=VALUE (got ${item})`);
    out[item.slice(0, eq)] = value;
  }
  return out;
}

/**
 * A --min-score outside its target's scale is a usage error naming the scale: `swe-bench=30`
 * against a 0–1 target would fail every checkpoint, `swe-bench=0.3` against a percent target
 * pass nearly all. Raw-scale targets have no range to check.
 */
export function checkThresholdScales(thresholds: Record<string, number>, targets: Array<{ target: string; scale: 'fraction' | 'percent' | 'raw' }>): void {
  for (const [name, value] of Object.entries(thresholds)) {
    const t = targets.find((x) => x.target === name);
    if (!t || t.scale === 'raw') continue;
    const max = t.scale === 'percent' ? 100 : 1;
    if (value >= 0 && value <= max) continue;
    const hint = t.scale === 'fraction' && value > 1 && value <= 100 ? `; for ${value}% write ${name}=${value / 100}` : '';
    throw new SettingsError(`--min-score ${name}=${value}: ${name} is predicted on the ${t.scale} scale (0 to ${max})${hint}`);
  }
}

/**
 * Applies --exclude-benchmark to the matrix read; a name matching no task is a usage error (a
 * typo would otherwise keep the benchmark silently).
 */
export async function applyExclusions<T extends { matrix: ScoreMatrix | null }>(inputs: T, flags: SharedFlags): Promise<T & { excluded: number }> {
  const names = flags.excludeBenchmark ?? [];
  if (!names.length || !inputs.matrix) return { ...inputs, excluded: 0 };
  const { excludeBenchmarks } = await import('../inputs/exclude.js');
  const res = excludeBenchmarks(inputs.matrix, names);
  if (res.unknown.length) throw new SettingsError(`--exclude-benchmark: no source task matches ${res.unknown.join(', ')}`);
  return { ...inputs, matrix: res.matrix, excluded: res.removed };
}

/** Pool-building settings shared by fit and evaluate. */
export function poolSettings(flags: SharedFlags): { minModelCoverage?: number; minCompleteShare?: number; poolScope: 'targets' | 'all' } {
  const pool = flags.pool ?? 'targets';
  if (pool !== 'targets' && pool !== 'all') throw new SettingsError(`--pool must be targets or all (got ${pool})`);
  const v = minCoverage(flags);
  const complete = number('min-complete-share', flags.minCompleteShare);
  if (complete !== undefined && !(complete >= 0 && complete <= 1)) throw new SettingsError('--min-complete-share must be in [0, 1]');
  return { ...(v !== undefined ? { minModelCoverage: v } : {}), ...(complete !== undefined ? { minCompleteShare: complete } : {}), poolScope: pool };
}
