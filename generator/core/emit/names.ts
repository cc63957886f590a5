import { HARNESS_NAME_PATTERN } from './task-config.js';

export interface BuiltinTaskNames {
  harness_version: string;
  names: ReadonlySet<string>;
}

let cached: BuiltinTaskNames | undefined;

/**
 * The installed-harness task/group/tag names committed in harness-task-names.json
 * (regenerate with `python generator/core/emit/harness-task-names.py generator/core/emit/harness-task-names.json`).
 * Loaded lazily: 14k names are only needed when a suite is emitted.
 */
export async function builtinTaskNames(): Promise<BuiltinTaskNames> {
  if (!cached) {
    const mod = (await import('./harness-task-names.json', { with: { type: 'json' } })) as {
      default: { harness_version: string; names: string[] };
    };
    cached = { harness_version: mod.default.harness_version, names: new Set(mod.default.names) };
  }
  return cached;
}

const namePattern = new RegExp(HARNESS_NAME_PATTERN);

/** Harness names end up in file names, fnmatch patterns and comma-separated `--tasks` lists. */
export function isValidHarnessName(name: string): boolean {
  return namePattern.test(name);
}
