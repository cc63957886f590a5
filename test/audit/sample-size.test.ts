/**
 * A task (or a language of it) with fewer scored questions than the gates need is WARN whatever
 * its checks read at that size, and says so: its verdict does not change with the seed, and a set
 * the audit cannot vouch for never reads PASS.
 */
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditQuestions } from '../../generator/core/questions/audit/index.js';
import { verdictLines } from '../../generator/cli/commands/build.js';
import { smallCells } from '../../generator/core/questions/audit/sample-size.js';
import { cli } from '../helpers/cli.js';
import { hasSharedData, shared } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { completion } from './build.js';
import { plantedSet } from './planted.js';

const tooFew = (findings: { code: string; args: Record<string, unknown> }[]) => findings.filter((f) => f.code === 'audit-too-few-to-judge').map((f) => f.args.cells);

describe('too few to judge', () => {
  it('a small cue-free task is WARN at every seed, not PASS at some and WARN at others', () => {
    const verdicts = Array.from({ length: 12 }, (_, s) => {
      const { findings, report } = auditQuestions(plantedSet('none', { n: 16, recorded: true, seed: `small-${s}` }));
      expect(tooFew(findings)).toEqual([['en 16 MCQ']]);
      return report.tasks[0]!.verdict;
    });
    expect(new Set(verdicts)).toEqual(new Set(['warn']));
  });

  it('names only the language under the minimum, and the verdict line says so first', () => {
    const en = plantedSet('none', { n: 40, recorded: true }).map((q, i) => ({ ...q, provenance: { ...q.provenance, traj_id: `en-${i}` } }));
    const zh = plantedSet('none', { n: 12, recorded: true, seed: 'zh' }).map((q, i) => ({ ...q, id: `zh-${i}`, language: 'zh' as const, provenance: { ...q.provenance, traj_id: `zh-${i}` } }));
    const { findings, report } = auditQuestions([...en, ...zh]);
    expect(tooFew(findings)).toEqual([['zh 12 MCQ']]);
    expect(report.tasks[0]!.smallCells).toEqual([{ format: 'mcq', language: 'zh', n: 12 }]);
    expect(report.tasks[0]!.verdict).toBe('warn');
    expect(verdictLines(report)[0]).toMatch(/^verdict aptpace_dr_plan_mcq: WARN \(too few to judge: zh 12 MCQ scored, under 30; learned adversary en /);

    const enOnly = auditQuestions(en);
    expect(tooFew(enOnly.findings)).toEqual([]);
    expect(enOnly.report.tasks[0]!.smallCells).toEqual([]);
  });

  it('a task whose questions are all few-shot examples scores nothing and is not vouched for', () => {
    const shots = plantedSet('none', { n: 3, recorded: true }).map((q) => ({ ...q, split: 'fewshot' as const }));
    const { findings, report } = auditQuestions(shots);
    expect(tooFew(findings)).toEqual([['en 0 MCQ']]);
    expect(report.verdict).toBe('warn');
  });

  it('completion tasks count their scored questions, whatever their language', () => {
    const targets = (n: number, language: 'en' | 'zh') =>
      Array.from({ length: n }, (_, i) => completion({ prompt: `Issue ${language}${i}: fix it.\nThe next command:\n`, answer_stem: 'The next command:\n', targets: [`pytest tests/test_${language}${i}.py -k case${i}`], language }));
    expect(tooFew(auditQuestions([...targets(12, 'en'), ...targets(8, 'zh')]).findings)).toEqual([['20 completion']]);
    expect(tooFew(auditQuestions([...targets(20, 'en'), ...targets(10, 'zh')]).findings)).toEqual([]);
    const fewshot = targets(40, 'en').map((q, i) => (i < 15 ? { ...q, split: 'fewshot' as const } : q));
    expect(smallCells(fewshot, [])).toEqual([{ format: 'completion', language: null, n: 25 }]);
  });
});

describe.skipIf(!hasSharedData)('too few to judge on the real runs', () => {
  it('every small task of a build reads the same verdict at seeds 0–3', async () => {
    const dir = tempDir('aptpace-small-');
    const bySeed: Record<string, string>[] = [];
    for (const seed of ['0', '1', '2', '3']) {
      const r = await cli('build', shared('trajectories'), '--include-unproven', '--seed', seed, '--kinds', 'plan_mcq,next_action_mcq,env_setup_error_mcq,bug_locate_mcq,fix_patch_mcq,next_action_tc', '--out', path.join(dir, `q${seed}.jsonl`), '--json');
      const tasks = r.json.data.audit.tasks as { task: string; verdict: string; smallCells: unknown[] }[];
      // Each of these tasks is under the minimum in the shared runs; if one grows past it, this test no longer tests it.
      for (const t of tasks) expect(t.smallCells.length, t.task).toBeGreaterThan(0);
      bySeed.push(Object.fromEntries(tasks.map((t) => [t.task, t.verdict])));
    }
    for (const verdicts of bySeed.slice(1)) expect(verdicts).toEqual(bySeed[0]);
    expect(new Set(Object.values(bySeed[0]!))).toEqual(new Set(['warn']));
  }, 120_000);
});
