import { describe, expect, it } from 'vitest';
import { Rng } from '../../generator/core/kernel/rng.js';
import { CorpusIndex, fixPatchOf, testPatchOf } from '../../generator/core/questions/corpus.js';
import { changedFiles, formatDiff, normalisePatch, parseDiff } from '../../generator/core/questions/diff.js';
import { invertCondition } from '../../generator/core/questions/operators/inverted-condition.js';
import { shiftByOne } from '../../generator/core/questions/operators/off-by-one.js';
import { PATCH_OPERATORS, STEP_OPERATORS } from '../../generator/core/questions/operators/index.js';
import type { StepCandidate } from '../../generator/core/questions/operators/types.js';
import { planOf } from '../../generator/core/questions/plans.js';
import { byId, loadCanonical } from './fixtures.js';

const all = loadCanonical();
const proven = all.filter((t) => t.outcome.success_source !== 'self_report');
const corpus = new CorpusIndex(proven);
const textstats = byId(all, 'fixture:acme__textstats-12:0');
const format = byId(all, 'fixture:acme__textstats-15:0');

function goldAt(t = textstats, i: number): StepCandidate {
  const s = t.steps[i]!;
  return { plan: planOf(s), planGiven: Boolean(s.plan), action: s.action };
}

describe('unified diffs', () => {
  it('round-trips every fixture patch byte for byte', () => {
    for (const t of all) {
      for (const p of [fixPatchOf(t), testPatchOf(t)]) if (p) expect(formatDiff(parseDiff(p))).toBe(p);
    }
  });
  it('lists changed files without the a/ b/ prefixes', () => {
    expect(changedFiles(fixPatchOf(format)!)).toEqual(['textstats/format.py']);
  });
});

describe('patch operators', () => {
  it('hand-checked condition inversions and off-by-one shifts', () => {
    expect(invertCondition('    if w > 103:')).toBe('    if w <= 103:');
    expect(invertCondition('    if value is None:')).toBe('    if value is not None:');
    expect(invertCondition('    return a == b')).toBe('    return a != b');
    expect(invertCondition('    x = 1')).toBeNull();
    expect(shiftByOne('    return len(words) - 1')).toBe('    return len(words)');
    expect(shiftByOne('    for i in range(n):')).toBeNull();
    expect(shiftByOne('    if i < n:')).toBe('    if i <= n:');
    expect(shiftByOne('    x = 41')).toBe('    x = 42');
  });

  it('every proposal parses, changes something and differs from the gold after normalisation', () => {
    let proposals = 0;
    for (const t of proven) {
      const goldText = fixPatchOf(t);
      if (!goldText) continue;
      const gold = parseDiff(goldText);
      for (const [name, op] of Object.entries(PATCH_OPERATORS)) {
        for (const seed of ['a', 'b', 'c']) {
          for (const p of op.propose({ rng: new Rng(seed), trajectory: t, gold, goldText, otherPaths: ['textstats/cli.py', 'weblib/views.py'], corpus, patchOf: 'fix' })) {
            proposals++;
            expect(normalisePatch(p), `${name} on ${t.traj_id}`).not.toBe(normalisePatch(goldText));
            const files = parseDiff(p);
            expect(files.length).toBeGreaterThan(0);
            expect(files.some((f) => f.hunks.some((h) => h.lines.some((l) => /^[+-]/.test(l))))).toBe(true);
          }
        }
      }
    }
    expect(proposals).toBeGreaterThan(20);
  });

  it('wrong_hunk drops one hunk of a two-hunk patch; wrong_file keeps the edit but moves it', () => {
    const goldText = fixPatchOf(format)!;
    const gold = parseDiff(goldText);
    const ctx = { rng: new Rng('x'), trajectory: format, gold, goldText, otherPaths: ['textstats/cli.py'], corpus, patchOf: 'fix' as const };
    const [dropped] = PATCH_OPERATORS.wrong_hunk.propose(ctx);
    expect(parseDiff(dropped!)[0]!.hunks).toHaveLength(1);
    const [moved] = PATCH_OPERATORS.wrong_file.propose(ctx);
    expect(changedFiles(moved!)).toEqual(['textstats/cli.py']);
    expect(moved!.split('\n').filter((l) => /^[+-][^+-]/.test(l))).toEqual(goldText.split('\n').filter((l) => /^[+-][^+-]/.test(l)));
  });

  it('reverted_line puts a removed line back and drops its replacement', () => {
    const goldText = fixPatchOf(format)!;
    const [out] = PATCH_OPERATORS.reverted_line.propose({ rng: new Rng('r'), trajectory: format, gold: parseDiff(goldText), goldText, otherPaths: [], corpus, patchOf: 'fix' });
    expect(out).toContain('\n     return f"{part / total * 100:.0f}%"\n');
    expect(out).not.toContain('.1f');
    // Recounted header: the reverted line is context now, so old and new both have 8 lines.
    expect(out).toContain('@@ -3,8 +3,8 @@');
    expect(out).toContain('@@ -15,5 +15,7 @@');
  });
});

describe('step operators', () => {
  const ctx = (i: number, seed = 's') => ({ rng: new Rng(seed), trajectory: textstats, position: i, gold: goldAt(textstats, i), corpus });

  it('off_target_path aims the same command at another path the agent saw', () => {
    const [c] = STEP_OPERATORS.off_target_path.propose(ctx(1));
    expect(c!.action.tool).toBe('str_replace_editor');
    expect(c!.action.text).not.toBe(textstats.steps[1]!.action.text);
    expect(c!.action.text.startsWith('str_replace_editor view /testbed/')).toBe(true);
    expect(c!.action.args.path).toBe(c!.action.text.split(' ').pop());
  });

  it('wrong_tool misspells the tool but keeps the arguments', () => {
    const [c] = STEP_OPERATORS.wrong_tool.propose(ctx(1));
    expect(['str_replace_edit', 'file_editor', 'edit_file']).toContain(c!.action.tool);
    expect(c!.action.args).toEqual(textstats.steps[1]!.action.args);
    const [shell] = STEP_OPERATORS.wrong_tool.propose(ctx(3));
    expect(shell!.action.text).toMatch(/^cd \/testbed && (pyhton|python4) reproduce\.py$/);
  });

  it('premature_submit offers the trajectory finish action, never at the finish itself', () => {
    const [c] = STEP_OPERATORS.premature_submit.propose(ctx(2));
    expect(c!.action.kind).toBe('finish');
    expect(STEP_OPERATORS.premature_submit.propose(ctx(8))).toEqual([]);
  });

  it('other_position never proposes the gold step or the one right after it', () => {
    for (const seed of ['1', '2', '3', '4', '5']) {
      for (const c of STEP_OPERATORS.other_position.propose(ctx(4, seed))) {
        expect(c.action).not.toBe(textstats.steps[4]!.action);
        expect(c.action).not.toBe(textstats.steps[5]!.action);
        expect(c.action.kind).not.toBe('finish');
      }
    }
  });

  it('borrowed_step never borrows from another run on the same task', () => {
    const twin = { ...structuredClone(textstats), traj_id: 'fixture:acme__textstats-12:1' };
    const twins = new CorpusIndex([textstats, twin]);
    for (const seed of ['1', '2', '3']) {
      expect(STEP_OPERATORS.borrowed_step.propose({ rng: new Rng(seed), trajectory: textstats, position: 3, gold: goldAt(textstats, 3), corpus: twins })).toEqual([]);
    }
  });

  it('borrowed_step takes steps of other trajectories of the same domain (adapted to this one’s entities)', () => {
    const own = new Set(textstats.steps.map((s) => s.action));
    const others = proven.filter((t) => t.traj_id !== textstats.traj_id && t.domain === 'swe');
    const otherTools = new Set(others.flatMap((t) => t.steps.map((s) => s.action.tool)));
    const out = STEP_OPERATORS.borrowed_step.propose(ctx(3));
    expect(out.length).toBeGreaterThan(0);
    for (const c of out) {
      expect(own.has(c.action)).toBe(false);
      expect(otherTools.has(c.action.tool)).toBe(true);
      expect(others.map((t) => t.task.instance_id)).toContain(/another task \((.+)\)/.exec(c.reason!)![1]);
    }
  });
});
