import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { McqQuestion } from '../../generator/core/questions/types.js';
import { hasPython, inCi, python, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { plantedSet } from './planted.js';

const script = path.join(repoRoot, 'test/audit/independent_adversary.py');

interface Cell { task: string; language: string; n: number; accuracy: number | null; chance: number; best_single_feature: string }

function run(questions: McqQuestion[]): Cell[] {
  const file = path.join(tempDir('aptpace-indep-'), 'q.jsonl');
  writeFileSync(file, questions.map((q) => JSON.stringify(q)).join('\n'));
  const res = spawnSync(python, [script, file], { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20 });
  if (res.status !== 0) throw new Error(`independent adversary failed (${res.status}): ${res.stderr}`);
  return JSON.parse(res.stdout) as Cell[];
}

const english = (cells: Cell[]) => cells.find((c) => c.language === 'en')!;

describe.skipIf(!hasPython && !inCi)('the independent adversary (test/audit/independent_adversary.py)', () => {
  it('finds a planted length cue, and names it as the best single feature', () => {
    const cell = english(run(plantedSet('length', { n: 120, recorded: true, seed: 'indep' })));
    expect(cell.n).toBe(120);
    expect(cell.accuracy!).toBeGreaterThan(0.8);
    expect(cell.best_single_feature).toMatch(/^log_(chars|words) \(highest\)$/);
  }, 300_000);

  it('stays near chance on a set without cues', () => {
    const cell = english(run(plantedSet('none', { n: 120, recorded: true, seed: 'indep' })));
    expect(cell.chance).toBeCloseTo(0.25, 5);
    expect(Math.abs(cell.accuracy! - cell.chance)).toBeLessThan(0.12);
  }, 300_000);
});
