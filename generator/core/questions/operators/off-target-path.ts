import { pathsIn, replaceInCandidate } from './edit.js';
import { factsOf } from './facts.js';
import type { StepOperator } from './types.js';

/** Same tool, same intent, aimed at a different file the agent also saw (or a plausible sibling). */
export const offTargetPath: StepOperator = {
  name: 'off_target_path',
  description: 'the same command aimed at another file or path seen in the trajectory',
  propose({ rng, trajectory, gold }) {
    const targets = pathsIn(gold.action.text);
    if (targets.length === 0) return [];
    const target = rng.pick(targets);
    const facts = factsOf(trajectory);
    const seen = new Set<string>([...facts.actionPaths, ...facts.observedPaths]);
    const sameExt = (p: string) => p.split('.').pop() === target.split('.').pop();
    const alternatives = [...seen].filter((p) => p !== target && !target.endsWith(p) && !p.endsWith(target) && sameExt(p)).sort();
    // Only real paths the agent met: an invented sibling (`base_x.py`) is eliminable on sight.
    return rng.shuffle(alternatives).slice(0, 3).map((p) => {
      const to = alignRoot(target, p);
      return { ...replaceInCandidate(gold, target, to), reason: `aims at ${to}, not ${target}, the file the next step needs` };
    });
  },
};

/** Keeps an absolute prefix like `/testbed/` when the replacement is repository-relative. */
function alignRoot(target: string, replacement: string): string {
  if (target.startsWith('/') && !replacement.startsWith('/')) {
    const root = target.split('/').slice(0, 2).join('/');
    return `${root}/${replacement}`;
  }
  return replacement;
}

