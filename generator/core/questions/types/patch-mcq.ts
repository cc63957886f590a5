import type { Trajectory } from '../../trajectories/types.js';
import { parseDiff, normalisePatch } from '../diff.js';
import { arrange, pickDistinct } from '../distractors.js';
import { normaliseChoice } from '../normalise.js';
import { PATCH_OPERATORS, type PatchOperatorName } from '../operators/index.js';
import { factsOf } from '../operators/facts.js';
import { repoRelative } from './bug-locate-mcq.js';
import type { KindContext } from './module.js';

const OPERATORS: PatchOperatorName[] = ['wrong_hunk', 'wrong_file', 'inverted_condition', 'off_by_one', 'reverted_line', 'borrowed_patch'];

/** The gold patch among perturbed ones; null when too few distinct perturbations exist. */
export function patchChoices(t: Trajectory, goldText: string, ctx: KindContext, patchOf: 'fix' | 'test') {
  const rng = ctx.rng.fork(`patch-${patchOf}`);
  const gold = parseDiff(goldText);
  const otherPaths = [...new Set(factsOf(t).actionPaths.map((p) => repoRelative(p, t)).filter((p) => p.includes('/')))].sort();
  const proposals = OPERATORS.map((name) => ({
    operator: name,
    values: PATCH_OPERATORS[name].propose({ rng: rng.fork(name), trajectory: t, gold, goldText, otherPaths, corpus: ctx.corpus, patchOf }),
  }));
  // Distinct as patches (line structure kept) and as displayed options (what the question
  // validator compares): options that differ only in whitespace or hunk headers look identical.
  const keys = (patch: string) => [normalisePatch(patch), normaliseChoice(patch.endsWith('\n') ? patch : `${patch}\n`)];
  const picked = pickDistinct(rng.fork('pick'), proposals, keys, keys(goldText), new Set(), ctx.choices - 1);
  if (picked.length < ctx.choices - 1) return null;
  return arrange(rng.fork('arrange'), goldText.endsWith('\n') ? goldText : `${goldText}\n`, picked);
}
