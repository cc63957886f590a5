import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { Rng } from '../../generator/core/kernel/rng.js';
import { readTrajectories } from '../../generator/core/trajectories/read.js';
import { validateTrajectory } from '../../generator/core/trajectories/schema.js';
import { fixtures } from '../helpers/env.js';

/** Every container path inside a JSON value, so a mutation can hit any depth. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = [...prefix, Array.isArray(value) ? Number(k) : k];
      out.push(p);
      paths(v, p, out);
    }
  }
  return out;
}

function mutate(value: unknown, rng: Rng): unknown {
  const copy = JSON.parse(JSON.stringify(value));
  const all = paths(copy);
  if (!all.length) return copy;
  const replacements: unknown[] = [null, 42, 'x', [], {}, [null], { a: 1 }, true, '{"broken": ', -1.5];
  for (let n = 0; n < 1 + rng.int(3); n++) {
    const p = rng.pick(all);
    let parent: any = copy;
    for (const key of p.slice(0, -1)) parent = parent?.[key];
    if (parent && typeof parent === 'object') parent[p[p.length - 1]!] = rng.pick(replacements);
  }
  return copy;
}

describe('mutated fixtures', () => {
  const dir = fixtures('trajectories', 'good');
  for (const name of readdirSync(dir).sort()) {
    it(`${name}: wrong types anywhere give findings or valid trajectories, never a crash`, async () => {
      const text = readFileSync(path.join(dir, name), 'utf8');
      const jsonl = name.endsWith('.jsonl');
      const values: unknown[] = jsonl ? text.trim().split('\n').map((l) => JSON.parse(l)) : [JSON.parse(text)];
      const rng = new Rng(`mutate:${name}`);
      const files: Record<string, string> = {};
      for (let i = 0; i < 150; i++) {
        const mutants = values.map((v) => mutate(v, rng));
        files[`/m/${String(i).padStart(3, '0')}-${name}`] = jsonl ? mutants.map((m) => JSON.stringify(m)).join('\n') + '\n' : JSON.stringify(mutants[0]);
      }
      const r = await readTrajectories(new MemoryVfs(files), ['/m']);
      expect(r.files).toHaveLength(150);
      // The catch-all in read.ts is a safety net; the readers themselves must handle every shape.
      expect(r.findings.filter((f) => f.code === 'traj-reader-failed').map((f) => `${f.path.file}: ${f.args.detail}`)).toEqual([]);
      for (const t of r.trajectories) expect(validateTrajectory(t)).toEqual([]);
      expect(r.tally.read).toBe(r.tally.accepted + r.tally.rejected);
    });
  }
});
