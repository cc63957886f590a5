import * as path from 'node:path';
import type { Finding } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import { walkTree } from '../kernel/walk.js';
import { MANIFEST_FILE } from './plan.js';
import type { BuiltinTaskNames } from './names.js';

/** Parses one task YAML; injected so the bench can compare parsers on the same walk. */
export type YamlLoader = (text: string) => unknown;

export interface CheckoutNames extends BuiltinTaskNames {
  /** Task YAMLs read, and those that did not parse (skipped, as the harness would warn and skip them). */
  files: number;
  unreadable: number;
  /** Where the version came from (pyproject.toml, dist-info, __init__.py), or undefined when unknown. */
  versionSource?: string;
  findings: Finding[];
}

/**
 * js-yaml with the harness's own tags accepted: `!function utils.process_docs` in any node kind.
 * The value is irrelevant to name checks, so it loads as its text. Loaded lazily: only
 * `emit --harness` reads a checkout.
 */
export async function jsYamlLoader(): Promise<YamlLoader> {
  const yaml = await import('js-yaml');
  const fn = (kind: 'scalar' | 'sequence' | 'mapping') => new yaml.Type('!function', { kind, construct: (data: unknown) => ({ function: data }) });
  const schema = yaml.DEFAULT_SCHEMA.extend([fn('scalar'), fn('sequence'), fn('mapping')]);
  return (text) => yaml.load(text, { schema, json: true });
}

/**
 * Every task, group and tag name the checkout's own task YAMLs register, and its version. Read
 * from the tree on disk (thousands of files), not from a snapshot, so a checkout with extra or
 * fewer tasks, or another release, is judged as it is. `include:` is followed (relative to the
 * including file, up to a few levels) for a `task:` or `tag:` the file itself leaves out.
 * Folders holding an aptpace manifest are our own suites and are left to the sibling check.
 */
export async function readCheckoutNames(vfs: Vfs, checkout: string, load?: YamlLoader): Promise<CheckoutNames> {
  const parse = load ?? (await jsYamlLoader());
  const tasksDir = path.join(checkout, 'lm_eval', 'tasks');
  const ours = new Set<string>();
  for (const name of await vfs.list(tasksDir).catch(() => [] as string[])) {
    if ((await vfs.lstat(path.join(tasksDir, name, MANIFEST_FILE)).catch(() => undefined))?.isFile) ours.add(name);
  }
  const tree = await walkTree(vfs, tasksDir, { filter: (f) => /\.ya?ml$/i.test(f) && !ours.has(path.relative(tasksDir, f).split(path.sep)[0]!) });
  const names = new Set<string>();
  const cache = new Map<string, Record<string, unknown> | null>();
  let unreadable = 0;

  async function doc(file: string): Promise<Record<string, unknown> | null> {
    if (cache.has(file)) return cache.get(file)!;
    let value: Record<string, unknown> | null = null;
    try {
      const parsed = parse(await vfs.readText(file));
      value = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    } catch {
      value = null;
    }
    cache.set(file, value);
    return value;
  }

  /** A key of the file, or of the file it includes (the harness merges the include under the file). */
  async function field(file: string, key: string, depth = 0): Promise<unknown> {
    const d = await doc(file);
    if (!d) return undefined;
    if (d[key] !== undefined || typeof d.include !== 'string' || depth >= 4) return d[key];
    return field(path.resolve(path.dirname(file), d.include), key, depth + 1);
  }

  const add = (v: unknown) => {
    if (typeof v === 'string' && v) names.add(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && x) names.add(x);
  };
  for (const file of tree.files) {
    const d = await doc(file);
    if (!d) {
      unreadable++;
      continue;
    }
    const task = await field(file, 'task');
    if (typeof task === 'string') add(task);
    else if (Array.isArray(task)) {
      // A group file's task list: inline task definitions register their names too.
      for (const item of task) if (item && typeof item === 'object' && typeof (item as Record<string, unknown>).task === 'string') add((item as Record<string, unknown>).task);
    }
    const group = d.group;
    if (typeof group === 'string') add(group);
    else if (Array.isArray(group)) add(group);
    add(await field(file, 'tag'));
  }
  const version = await checkoutVersion(vfs, checkout);
  return { harness_version: version?.version ?? 'unknown', versionSource: version?.source, names, files: tree.files.length, unreadable, findings: tree.findings };
}

/** The version of a source checkout (pyproject.toml) or an installed package (lm_eval-X.dist-info beside lm_eval/). */
export async function checkoutVersion(vfs: Vfs, checkout: string): Promise<{ version: string; source: string } | undefined> {
  const pyproject = path.join(checkout, 'pyproject.toml');
  try {
    const text = await vfs.readText(pyproject);
    const m = /^\s*version\s*=\s*["']([^"']+)["']/m.exec(text);
    if (m) return { version: m[1]!, source: pyproject };
  } catch {
    // not a source checkout
  }
  for (const name of await vfs.list(checkout).catch(() => [] as string[])) {
    const m = /^lm_eval-(\d+\.\d+\.\d+[^-]*)\.dist-info$/.exec(name);
    if (m) return { version: m[1]!, source: path.join(checkout, name) };
  }
  return undefined;
}
