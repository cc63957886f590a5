import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/env.js';

/**
 * `npm ci` on the oldest Node we support must print no EBADENGINE warning: every package in the
 * lock file declares engines that the minimum of our own `engines.node` satisfies. A small
 * reader for the range forms npm packages use (`>=x`, `>= x`, `^x`, `x.*`, `*`, `a || b`,
 * space-separated conjunctions) keeps this test free of a semver dependency.
 */
type Version = [number, number, number];

function parseVersion(text: string): Version {
  const parts = text.replace(/^v/, '').split('.').map((p) => (p === '*' || p === 'x' || p === '' ? 0 : Number(p)));
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function satisfiesComparator(v: Version, comparator: string): boolean {
  const c = comparator.trim();
  if (c === '' || c === '*') return true;
  const m = /^(>=|<=|>|<|\^|~|=)?\s*v?([0-9]+(?:\.[0-9x*]+)*)$/.exec(c);
  if (!m) throw new Error(`unsupported engines range: ${comparator}`);
  const op = m[1] ?? '';
  const raw = m[2]!;
  const want = parseVersion(raw);
  const wildcard = /\.(x|\*)/.test(raw) || raw.split('.').length < 3;
  switch (op) {
    case '>=': return compare(v, want) >= 0;
    case '>': return compare(v, want) > 0;
    case '<=': return compare(v, want) <= 0;
    case '<': return compare(v, want) < 0;
    case '^': return compare(v, want) >= 0 && v[0] === want[0];
    case '~': return compare(v, want) >= 0 && v[0] === want[0] && v[1] === want[1];
    default:
      if (!wildcard) return compare(v, want) === 0;
      return v[0] === want[0] && (raw.split('.').length < 2 || /^[x*]$/.test(raw.split('.')[1]!) || v[1] === want[1]);
  }
}

export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  return range.split('||').some((alternative) => {
    // ">= 10" → ">=10" so the conjunction split does not separate an operator from its version.
    const tight = alternative.trim().replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1');
    return tight.split(/\s+/).every((comparator) => satisfiesComparator(v, comparator));
  });
}

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

describe('declared Node engines', () => {
  it('reads the range forms npm packages use', () => {
    expect(satisfies('20.19.0', '>=20')).toBe(true);
    expect(satisfies('20.19.0', '>=22')).toBe(false);
    expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.18.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('20.19.0', '6.* || 8.* || >= 10.*')).toBe(true);
    expect(satisfies('20.19.0', '^20.0.0 || ^22.0.0 || >=24.0.0')).toBe(true);
    expect(satisfies('20.19.0', '^8.16.0 || ^10.6.0 || >=11.0.0')).toBe(true);
  });

  it('our own minimum Node satisfies every locked package (npm ci prints no EBADENGINE)', () => {
    const ours = pkg.engines.node;
    const minimum = /^>=\s*([0-9.]+)$/.exec(ours)?.[1];
    expect(minimum, `package.json engines.node must be a ">=x.y.z" floor, got ${ours}`).toBeDefined();
    const lockRoot = lock.packages[''] as { engines?: { node?: string } };
    expect(lockRoot.engines?.node, 'package-lock.json is out of date with package.json engines').toBe(ours);
    const mismatched: string[] = [];
    for (const [name, entry] of Object.entries(lock.packages)) {
      if (name === '' || !entry.engines || Array.isArray(entry.engines) || !entry.engines.node) continue;
      if (!satisfies(minimum!, entry.engines.node)) mismatched.push(`${name}@${entry.version}: node ${entry.engines.node}`);
    }
    expect(mismatched).toEqual([]);
    // The Node running the tests (CI's) is one we claim to support.
    expect(satisfies(process.version, ours), `${process.version} vs ${ours}`).toBe(true);
  });

  it('the README states the same minimum Node', () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const minimum = /^>=\s*([0-9.]+)$/.exec(pkg.engines.node)![1]!.replace(/\.0$/, '');
    expect(readme).toContain(`Node ≥ ${minimum}`);
  });
});
