/**
 * The build says what its audit concluded: one verdict line per task and overall, a failed set
 * written under a name that says so, and emit refusing such a set unless told.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stableStringify } from '../../generator/core/kernel/stable-json.js';
import { cli } from '../helpers/cli.js';
import { hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { plantedSet } from './planted.js';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { verdictLines } from '../../generator/cli/commands/build.js';

describe.skipIf(!hasSharedData)('build on the real deep-research runs', () => {
  it('without adversarial filtering the learned adversary fails dr_plan_mcq: the set is written as *.audit-failed.jsonl, and emit refuses it', async () => {
    const dir = tempDir('aptpace-adv-');
    const out = path.join(dir, 'q.jsonl');
    const r = await cli('build', shared('trajectories'), '--include-unproven', '--seed', '0', '--kinds', 'dr_plan_mcq', '--no-adversarial-filter', '--out', out);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^verdict aptpace_dr_plan_mcq: FAIL \(learned adversary en \d/m);
    expect(r.stdout).toMatch(/^verdict overall: FAIL$/m);
    expect(existsSync(out)).toBe(false);
    const failed = path.join(dir, 'q.audit-failed.jsonl');
    expect(existsSync(failed)).toBe(true);
    expect(r.stderr + r.stdout).toContain('build-audit-failed');

    const refused = await cli('emit', failed, '--out', path.join(dir, 'suite'), '--json');
    expect(refused.code).toBe(1);
    expect(refused.json.findings.map((f: any) => f.code)).toEqual(['emit-audit-failed']);
    expect(existsSync(path.join(dir, 'suite'))).toBe(false);
    const allowed = await cli('emit', failed, '--out', path.join(dir, 'suite'), '--allow-failed-audit', '--json');
    expect(allowed.json.findings.filter((f: any) => f.code === 'emit-audit-failed')).toEqual([]);
    expect(existsSync(path.join(dir, 'suite'))).toBe(true);
  }, 180_000);

  it('with adversarial filtering (the default) the same build is not failed by the adversary', async () => {
    const dir = tempDir('aptpace-adv-');
    const out = path.join(dir, 'q.jsonl');
    const r = await cli('build', shared('trajectories'), '--include-unproven', '--seed', '0', '--kinds', 'dr_plan_mcq', '--out', out, '--json');
    expect(r.json.findings.filter((f: any) => f.code === 'audit-adversary-above-chance')).toEqual([]);
    expect(r.json.data.skipped['dr_plan_mcq:adversary-solvable']).toBeGreaterThan(0);
    // No two options make one call (the same tool and arguments, worded twice in the plan): such a
    // pair is one step, so neither can be the single right answer (borrowed steps from two runs,
    // adapted to this one, did that in 9–14 questions per three builds).
    const rows = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; choices: string[] });
    const repeated = rows.filter((q) => {
      const calls = q.choices.map((c) => {
        const e = (JSON.parse(c) as { execution: { name: string; args: Record<string, unknown> } }).execution;
        return `${e.name} ${JSON.stringify(Object.fromEntries(Object.entries(e.args).sort(([a], [b]) => (a < b ? -1 : 1))))}`;
      });
      return new Set(calls).size < calls.length;
    });
    expect(rows.length).toBeGreaterThan(50);
    expect(repeated.map((q) => q.id)).toEqual([]);
  }, 180_000);
});

describe('emit', () => {
  it('warns on a task with one or two documents', async () => {
    const dir = tempDir('aptpace-adv-');
    const file = path.join(dir, 'q.jsonl');
    writeFileSync(file, plantedSet('none', { n: 2, recorded: true }).map((q) => `${stableStringify(q)}\n`).join(''));
    const r = await cli('emit', file, '--out', path.join(dir, 'suite'), '--json');
    expect(r.json.findings.filter((f: any) => f.code === 'emit-small-task').map((f: any) => [f.args.task, f.args.docs])).toEqual([['aptpace_dr_plan_mcq', 2]]);
  });
});

describe('build verdict lines', () => {
  it('name a language too small for the adversary to gate, beside the ones it gates', () => {
    const en = plantedSet('none', { n: 40, recorded: true }).map((q, i) => ({ ...q, provenance: { ...q.provenance, traj_id: `en-${i}` } }));
    const zh = plantedSet('none', { n: 12, recorded: true, seed: 'zh' }).map((q, i) => ({ ...q, id: `zh-${i}`, language: 'zh' as const, provenance: { ...q.provenance, traj_id: `zh-${i}` } }));
    const lines = verdictLines(auditQuestions([...en, ...zh]).report);
    const line = lines.find((l) => l.startsWith('verdict aptpace_dr_plan_mcq:'))!;
    expect(line).toMatch(/en [\d.]+% of 40 vs chance 25\.0%;/);
    expect(line).not.toMatch(/of 40 vs chance 25\.0%, too few/);
    expect(line).toMatch(/zh [\d.]+% of 12 vs chance 25\.0%, too few to gate \(under 30\)\)$/);
  });
});
