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

/**
 * Remedies of other classes, filled preferably with the entities of the failed step itself
 * (its command and error), so that "the option that names what the error names" does not
 * single out the gold; the rest of the prompt fills slots the error leaves empty.
 */
export function otherClassRemedies(
  cls: SetupErrorClass,
  failedStep: number,
  errorEntities: PromptEntities,
  promptEntities: PromptEntities,
  rng: Rng,
  usable: (c: FixCandidate) => boolean = () => true,
): FixCandidate[] {
  const pick = (a: string[], b: string[]) => (a.length ? a : b);
  const e: PromptEntities = {
    dirs: pick(errorEntities.dirs, promptEntities.dirs),
    files: pick(errorEntities.files, promptEntities.files),
    pkgs: pick(errorEntities.pkgs, promptEntities.pkgs),
    modules: pick(errorEntities.modules, promptEntities.modules),
  };
  const out: FixCandidate[] = [];
  const own = SETUP_ERROR_CLASSES[cls].label;
  for (const other of rng.shuffle(Object.keys(SETUP_ERROR_CLASSES) as SetupErrorClass[])) {
    if (other === cls) continue;
    // One remedy per class: options from one class would make the gold the odd one out.
    // Only remedies filled with this prompt's entities: a fixed string (`make clean`) recurs in
    // every question of the kind, so it would also be an option of the few-shot examples and
    // could be eliminated by copy-detection.
    for (const remedy of rng.fork(other).shuffle(SETUP_ERROR_CLASSES[other].remedies.filter((r) => r.includes('{')))) {
      const value = fill(remedy, e, rng.fork(`${other}/${remedy}`));
      if (!value) continue;
      const candidate = { value, reason: `remedies ${SETUP_ERROR_CLASSES[other].label}, but step ${failedStep + 1} failed on ${own}` };
      if (!usable(candidate)) continue;
      out.push(candidate);
      break;
    }
  }
  return out;
}

/** First two path segments (`/workspace/project`): a swap stays inside the same tree. */
function root(p: string): string {
  return p.split('/').filter(Boolean).slice(0, 2).join('/');
}

/**
 * The gold with one path or package replaced by another of the same sort from the prompt;
 * paths only by paths of the same tree, so the option stays something the agent could run.
 */
export function entitySwaps(gold: string, e: PromptEntities): FixCandidate[] {
  const out: FixCandidate[] = [];
  for (const [pool, isPath] of [[e.dirs, true], [e.files, true], [e.pkgs, false], [e.modules, false]] as const) {
    for (const from of pool) {
      if (!gold.includes(from)) continue;
      for (const to of pool) {
        if (to === from || gold.includes(to) || (isPath && root(to) !== root(from))) continue;
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

/**
 * Verified fixes of errors of another class in other tasks' trajectories. A fix naming a
 * path is borrowed only when the path is in this prompt too: another project's path would be
 * eliminable on topic alone.
 */
export function borrowedFixes(corpus: CorpusIndex, own: Trajectory, cls: SetupErrorClass, promptText: string): FixCandidate[] {
  const pathsKnown = (fix: string) => [...fix.matchAll(/(?:\/|\.\/)?[\w.-]+(?:\/[\w.-]+)+/g)].every((m) => promptText.includes(m[0]));
  return corpusPairs(corpus)
    .filter(({ t, pair }) => !sameTask(t, own) && pair.cls !== cls && pathsKnown(pair.fixCommand))
    .map(({ pair }) => ({ value: pair.fixCommand, reason: `fixed ${SETUP_ERROR_CLASSES[pair.cls].label} in another run, not this error` }));
}
