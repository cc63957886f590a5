/**
 * Distractor operators of env_setup_error_mcq: plausible setup fixes that do not address the
 * observed error. Each candidate carries a one-line reason it is wrong.
 *   other_class_remedy  a remedy for another error class, filled with entities of this prompt
 *   entity_swap         the fix aimed at another path/package the prompt mentions
 *   borrowed_fix        the verified fix of a different-class error in another trajectory
 */
import type { Rng } from '../../kernel/rng.js';
import type { Trajectory } from '../../trajectories/types.js';
import type { CorpusIndex } from '../corpus.js';
import { sameTask } from '../corpus.js';
import { type ErrorFix, type PromptEntities, SETUP_ERROR_CLASSES, type SetupErrorClass, errorFixPairs } from './setup-errors.js';

export interface FixCandidate {
  value: string;
  reason: string;
}

export type FixOperatorName = 'other_class_remedy' | 'entity_swap' | 'borrowed_fix';

function fill(template: string, e: PromptEntities, rng: Rng): string | null {
  const slots: Record<string, string[]> = { dir: e.dirs, file: e.files, pkg: e.pkgs.length ? e.pkgs : e.modules, module: e.modules.length ? e.modules : e.pkgs };
  let out = template;
  for (const [slot, values] of Object.entries(slots)) {
    if (!out.includes(`{${slot}}`)) continue;
    if (values.length === 0) return null;
    out = out.replaceAll(`{${slot}}`, rng.pick(values));
  }
  return out;
}

export function otherClassRemedies(cls: SetupErrorClass, failedStep: number, e: PromptEntities, rng: Rng): FixCandidate[] {
  const out: FixCandidate[] = [];
  const own = SETUP_ERROR_CLASSES[cls].label;
  for (const other of rng.shuffle(Object.keys(SETUP_ERROR_CLASSES) as SetupErrorClass[])) {
    if (other === cls) continue;
    for (const remedy of SETUP_ERROR_CLASSES[other].remedies) {
      const value = fill(remedy, e, rng.fork(`${other}/${remedy}`));
      if (value) out.push({ value, reason: `remedies ${SETUP_ERROR_CLASSES[other].label}, but step ${failedStep + 1} failed on ${own}` });
    }
  }
  return out;
}

/** The gold with one path or package replaced by another of the same sort from the prompt. */
export function entitySwaps(gold: string, e: PromptEntities): FixCandidate[] {
  const out: FixCandidate[] = [];
  for (const pool of [e.dirs, e.files, e.pkgs, e.modules]) {
    for (const from of pool) {
      if (!gold.includes(from)) continue;
      for (const to of pool) {
        if (to === from || gold.includes(to)) continue;
        out.push({ value: gold.replaceAll(from, to), reason: `aims at \`${to}\`, not at \`${from}\` that the error concerns` });
      }
    }
  }
  return out;
}

const pairCache = new WeakMap<CorpusIndex, Array<{ t: Trajectory; pair: ErrorFix }>>();

function corpusPairs(corpus: CorpusIndex): Array<{ t: Trajectory; pair: ErrorFix }> {
  let cached = pairCache.get(corpus);
  if (!cached) {
    cached = corpus.trajectories.flatMap((t) => errorFixPairs(t).pairs.map((pair) => ({ t, pair })));
    pairCache.set(corpus, cached);
  }
  return cached;
}

/** Verified fixes of errors of another class in other tasks' trajectories. */
export function borrowedFixes(corpus: CorpusIndex, own: Trajectory, cls: SetupErrorClass): FixCandidate[] {
  return corpusPairs(corpus)
    .filter(({ t, pair }) => !sameTask(t, own) && pair.cls !== cls)
    .map(({ pair }) => ({ value: pair.fixCommand, reason: `fixed ${SETUP_ERROR_CLASSES[pair.cls].label} in another run, not this error` }));
}
