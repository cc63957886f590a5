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
    const out = rng.shuffle(alternatives).slice(0, 2).map((p) => replaceInCandidate(gold, target, alignRoot(target, p)));
    if (out.length === 0) out.push(replaceInCandidate(gold, target, sibling(target, rng.int(3))));
    return out;
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

function sibling(path: string, variant: number): string {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  const stems = [`${stem}_utils`, `base_${stem}`, `${stem}s`];
  return `${dir}${stems[variant % stems.length]}${ext}`;
}
