import { parseJson } from '../kernel/json.js';
import type { Finding } from '../kernel/findings.js';
import type { Vfs } from '../kernel/vfs.js';
import { delimiterFor, parseCsv } from './csv.js';
import { FindingSink } from './sink.js';
import type { FindingListener } from '../kernel/finding-collector.js';

export type ModelMapping = Record<string, string>;

/**
 * Reads an alias → canonical model-name file. JSON: `{"alias": "Canonical", …}` (or
 * `{"aliases": {…}}`); CSV/TSV: two columns `alias,canonical`, header optional.
 * Chains (a → b → c) are followed; an alias mapped to two names keeps the first.
 */
export async function readModelMapping(vfs: Vfs, file: string, options: { onFinding?: FindingListener } = {}): Promise<{ mapping: ModelMapping; findings: Finding[] }> {
  const sink = new FindingSink(options);
  const raw: Array<{ alias: unknown; canonical: unknown; where: { file: string; line?: number; field?: string } }> = [];
  let text: string;
  try {
    text = await vfs.readText(file);
  } catch (err) {
    sink.add('input-unreadable', { file }, { reason: (err as Error).message });
    return { mapping: {}, findings: sink.close() };
  }
  if (/\.json$/i.test(file)) {
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (err) {
      sink.add('input-unreadable', { file }, { reason: `invalid JSON: ${(err as Error).message}` });
      return { mapping: {}, findings: sink.close() };
    }
    const body = isObject(parsed) && isObject(parsed.aliases) ? parsed.aliases : parsed;
    if (!isObject(body)) {
      sink.add('input-unrecognised', { file }, { input: file, reason: 'expected a JSON object of alias → name' });
      return { mapping: {}, findings: sink.close() };
    }
    for (const [alias, canonical] of Object.entries(body)) {
      if (alias.startsWith('$') || alias === '_comment') continue; // room for notes in hand-written files
      raw.push({ alias, canonical, where: { file, field: alias } });
    }
  } else {
    const { rows, error } = parseCsv(text, delimiterFor(file));
    if (error) sink.add('table-parse-error', { file, line: error.line }, { reason: error.reason });
    rows.forEach((row, i) => {
      const [a, b] = row.fields.map((f) => f.trim());
      if (i === 0 && /^(alias|from|source|name)$/i.test(a ?? '') && /^(canonical|to|target|name|model)$/i.test(b ?? '')) return;
      if (row.fields.length !== 2) {
        sink.add('mapping-bad-entry', { file, line: row.line }, { entry: row.fields, reason: 'expected two columns' });
        return;
      }
      raw.push({ alias: a, canonical: b, where: { file, line: row.line } });
    });
  }

  const direct: ModelMapping = {};
  for (const { alias, canonical, where } of raw) {
    if (typeof alias !== 'string' || alias === '' || typeof canonical !== 'string' || canonical.trim() === '') {
      sink.add('mapping-bad-entry', where, { entry: [alias, canonical], reason: 'both names must be non-empty strings' });
      continue;
    }
    const name = canonical.trim();
    const prior = direct[alias];
    if (prior !== undefined && prior !== name) {
      sink.add('mapping-duplicate-alias', where, { alias, first: prior, second: name });
      continue;
    }
    direct[alias] = name;
  }

  const mapping: ModelMapping = {};
  for (const alias of Object.keys(direct).sort()) {
    let target = direct[alias]!;
    const seen = new Set([alias]);
    while (direct[target] !== undefined && direct[target] !== target && !seen.has(target)) {
      seen.add(target);
      sink.add('mapping-chain', { file, field: alias }, { alias, target, next: direct[target] });
      target = direct[target]!;
    }
    if (alias !== target) mapping[alias] = target;
  }
  return { mapping, findings: sink.close() };
}

/** The canonical name for `name` (first matching candidate wins), or the first candidate unchanged. */
export function mapModelName(mapping: ModelMapping | undefined, ...candidates: string[]): string {
  if (mapping) for (const c of candidates) if (mapping[c] !== undefined) return mapping[c]!;
  return candidates[0]!;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * One mapping file serves sources and targets: the score-table reader's `mapping-unused` counts
 * only its own inputs, so aliases used by the target files (OpenHands folder names) are taken out
 * of it here, and the finding is dropped when nothing is left unused.
 */
export function narrowUnusedAliases(findings: Finding[], usedByTargets: Set<string>): void {
  const i = findings.findIndex((f) => f.code === 'mapping-unused' && Array.isArray(f.args.unused));
  if (i < 0) return;
  const f = findings[i]!;
  const unused = (f.args.unused as string[]).filter((a) => !usedByTargets.has(a));
  if (!unused.length) findings.splice(i, 1);
  else findings[i] = { ...f, args: { ...f.args, count: unused.length, aliases: unused.slice(0, 10).join(', '), unused } };
}

