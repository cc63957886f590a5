/**
 * Frozen per-target settings and search grids. A config file maps target names to settings,
 * in aptpace's names (budget, q, m, ncH, ncD) or PACE's (count, q, m, nc_h, nc_d); keys
 * starting with `$` are comments.
 */
import { parseJson } from '../../kernel/json.js';
import { fallbackConfig, type PaceConfig } from '../types.js';
import type { Grid } from '../pipeline.js';

export const defaultGrid: Grid = {
  budgets: [50, 100],
  qs: [0.2, 0.5, 0.8],
  ms: [0, 0.25, 0.5, 0.75, 1],
  ncHs: [1, 2, 4, 7],
  ncDs: [1, 2, 4, 7],
};

export const defaultBudgetCurve = [25, 50, 100, 200, 400];

/** Setting names accepted in a config file (aptpace's and PACE's spellings). */
export const settingKeys = ['budget', 'count', 'q', 'm', 'ncH', 'nc_h', 'ncD', 'nc_d'];

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function parseConfigs(text: string): { configs: Record<string, PaceConfig>; errors: string[] } {
  const errors: string[] = [];
  const configs: Record<string, PaceConfig> = {};
  let raw: unknown;
  try {
    raw = parseJson(text);
  } catch (e) {
    return { configs, errors: [`not JSON: ${(e as Error).message}`] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { configs, errors: ['expected an object {target: settings}'] };
  for (const [target, value] of Object.entries(raw as Record<string, unknown>)) {
    if (target.startsWith('$')) continue;
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      errors.push(`${target}: expected an object of settings`);
      continue;
    }
    const v = value as Record<string, unknown>;
    // A misspelt setting would otherwise fall back to the default without a word.
    const unknown = Object.keys(v).filter((k) => !settingKeys.includes(k) && !k.startsWith('$'));
    if (unknown.length) {
      errors.push(`${target}: unknown setting ${unknown.join(', ')} (known: ${settingKeys.join(', ')})`);
      continue;
    }
    // A value that is there but not a finite number (1e309 reads as Infinity) is an error, never the default.
    const bad = settingKeys.filter((k) => k in v && num(v[k]) === undefined);
    if (bad.length) {
      errors.push(`${target}: ${bad.map((k) => `${k} must be a finite number (got ${typeof v[k] === "number" ? String(v[k]) : JSON.stringify(v[k])})`).join('; ')}`);
      continue;
    }
    const c: PaceConfig = {
      budget: num(v.budget) ?? num(v.count) ?? fallbackConfig.budget,
      q: num(v.q) ?? fallbackConfig.q,
      m: num(v.m) ?? fallbackConfig.m,
      ncH: num(v.ncH) ?? num(v.nc_h) ?? fallbackConfig.ncH,
      ncD: num(v.ncD) ?? num(v.nc_d) ?? fallbackConfig.ncD,
    };
    const problem = validateConfig(c);
    if (problem) errors.push(`${target}: ${problem}`);
    else configs[target] = c;
  }
  return { configs, errors };
}

export function validateConfig(c: PaceConfig): string | null {
  if (!Number.isInteger(c.budget) || c.budget < 1) return `budget must be a positive integer (got ${c.budget})`;
  if (!(c.q >= 0 && c.q <= 1)) return `q must be in [0, 1] (got ${c.q})`;
  if (!(c.m >= 0 && c.m <= 1)) return `m must be in [0, 1] (got ${c.m})`;
  if (!Number.isInteger(c.ncH) || c.ncH < 1) return `ncH must be a positive integer (got ${c.ncH})`;
  if (!Number.isInteger(c.ncD) || c.ncD < 1 || c.ncD > 10) return `ncD must be an integer in 1..10 (got ${c.ncD})`;
  return null;
}

export function parseGrid(text: string): { grid: Grid | null; error?: string } {
  try {
    const raw = parseJson(text) as Partial<Record<keyof Grid, unknown>>;
    const list = (k: keyof Grid) => {
      const v = raw[k] ?? defaultGrid[k];
      if (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) throw new Error(`${k} must be a non-empty list of numbers`);
      return v as number[];
    };
    return { grid: { budgets: list('budgets'), qs: list('qs'), ms: list('ms'), ncHs: list('ncHs'), ncDs: list('ncDs') } };
  } catch (e) {
    return { grid: null, error: (e as Error).message };
  }
}
