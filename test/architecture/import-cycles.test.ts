/**
 * The design's rules for the code itself: no import cycles among runtime imports (type-only
 * imports are erased and do not count), and the core never reaches into the CLI or node:fs.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/env.js';

const files = fg.sync('generator/**/*.ts', { cwd: repoRoot }).sort();

/** Relative runtime imports of one file, resolved to repository paths (.js → .ts). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const out: string[] = [];
  const re = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^\s*import\s*['"](\.[^'"]+)['"]/gm;
  for (const m of text.matchAll(re)) {
    if (m[2]) continue;
    // `import { type A, type B } from` is type-only too.
    if (m[3] && /^\{[^}]*\}$/.test(m[3].trim()) && m[3].replace(/[{}\s]/g, '').split(',').filter(Boolean).every((n) => n.startsWith('type'))) continue;
    const spec = m[4] ?? m[5]!;
    out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec.replace(/\.js$/, '.ts'))));
  }
  return out;
}

const graph = new Map(files.map((f) => [f, runtimeImports(f).filter((t) => files.includes(t))]));

function findCycle(): string[] | null {
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): string[] | null => {
    state.set(f, 'active');
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 'active') return [...stack.slice(stack.indexOf(t)), t];
      if (!state.has(t)) {
        const c = visit(t);
        if (c) return c;
      }
    }
    stack.pop();
    state.set(f, 'done');
    return null;
  };
  for (const f of files) if (!state.has(f)) {
    const c = visit(f);
    if (c) return c;
  }
  return null;
}

describe('module structure', () => {
  it('reads the import graph (the check below sees real edges)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get('generator/cli/main.ts')!.length).toBeGreaterThan(3);
  });

  it('has no runtime import cycle', () => {
    expect(findCycle()).toBeNull();
  });

  it('the core never imports the CLI or node:fs (node-vfs.ts is the one real-fs Vfs, its writes in node-write.ts; only the CLI and tests import them)', () => {
    const adapter = 'generator/core/kernel/node-vfs.ts';
    const writes = 'generator/core/kernel/node-write.ts';
    expect(files.filter((f) => f.startsWith('generator/core/') && runtimeImports(f).includes(adapter))).toEqual([]);
    expect(files.filter((f) => f.startsWith('generator/core/') && f !== adapter && runtimeImports(f).includes(writes))).toEqual([]);
    const offenders = files
      .filter((f) => f.startsWith('generator/core/') && f !== adapter && f !== writes)
      .filter((f) => {
        const text = readFileSync(path.join(repoRoot, f), 'utf8');
        return /from\s+['"](node:)?fs(\/promises)?['"]/.test(text) || runtimeImports(f).some((t) => t.startsWith('generator/cli/'));
      });
    expect(offenders).toEqual([]);
  });

  it('every write goes through the one containment check (output.ts): nothing else calls the Vfs write primitives', () => {
    const kernelIo = new Set(['generator/core/kernel/output.ts', 'generator/core/kernel/vfs.ts', 'generator/core/kernel/node-vfs.ts', 'generator/core/kernel/memory-vfs.ts']);
    const offenders = files
      .filter((f) => !kernelIo.has(f))
      .filter((f) => /\.(writeFileAtomic|openAtomicWriter)\(|\bwriteLinesAtomic\(/.test(readFileSync(path.join(repoRoot, f), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
