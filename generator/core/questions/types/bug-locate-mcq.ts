import type { Trajectory } from '../../trajectories/types.js';
import { fixPatchOf } from '../corpus.js';
import { changedFiles } from '../diff.js';
import { arrange, pickDistinct } from '../distractors.js';
import { factsOf } from '../operators/facts.js';
import type { QuestionTypeModule } from './module.js';

const SANDBOX_ROOTS = new Set(['testbed', 'workspace', 'repo', 'app', 'code', 'src_root', 'home', 'root', 'tmp']);

/**
 * Repository-relative form of a path the agent used: `/testbed/a/b.py` → `a/b.py`,
 * `/workspace/owner__repo__1.0/a/b.py` → `a/b.py`. Distractor paths must look like the gold
 * (which comes from a diff header), or their form alone would give them away.
 */
export function repoRelative(path: string, t: Trajectory): string {
  let p = path.replace(/^\.\//, '').replace(/^[ab]\//, '');
  const workdir = t.environment.workdir?.replace(/\/$/, '');
  if (workdir && p.startsWith(`${workdir}/`)) return p.slice(workdir.length + 1);
  const repoName = (t.environment.repo ?? t.source.repo ?? '').split('/').pop()?.toLowerCase();
  let parts = p.split('/');
  if (parts[0] === '') parts = parts.slice(1);
  while (parts.length > 1 && (SANDBOX_ROOTS.has(parts[0]!) || parts[0]!.includes('__') || (repoName && parts[0]!.toLowerCase() === repoName))) parts = parts.slice(1);
  return parts.join('/');
}

/**
 * Bug localisation: which file the successful patch changes. Distractors are files the agent
 * itself opened or saw (hard negatives), then files other patches of the same repository change.
 */
export const bugLocateMcq: QuestionTypeModule = {
  kind: 'bug_locate_mcq',
  format: 'mcq',
  domains: ['swe'],
  template: 'bug_locate_mcq',
  generate(t, ctx) {
    if (!t.task.goal.trim()) return { drafts: [], skipped: ['no-goal'] };
    const patch = fixPatchOf(t);
    if (!patch) return { drafts: [], skipped: ['no-patch'] };
    const changed = changedFiles(patch);
    if (changed.length === 0) return { drafts: [], skipped: ['no-patch'] };
    const rng = ctx.rng.fork('locate');
    const gold = changed[rng.int(changed.length)]!;
    // The issue naming the changed file answers the question by copying: not a localisation question.
    if (t.task.goal.includes(gold)) return { drafts: [], skipped: ['gold-in-prompt'] };
    const ext = gold.split('.').pop();
    const facts = factsOf(t);
    const looked = facts.actionPaths.map((p) => repoRelative(p, t));
    const seen = facts.observedPaths.map((p) => repoRelative(p, t));
    // A path that is a changed file seen through a shorter or longer root (`pkg/a.py` vs `a.py`
    // when the package is named like the repository) is the gold, not a distractor; a path the
    // prompt (the issue text) already shows is eliminable by copy detection.
    const sameFile = (p: string, c: string) => p === c || c.endsWith(`/${p}`) || p.endsWith(`/${c}`);
    const goalText = t.task.goal;
    const isCandidate = (p: string) => p.includes('/') && p.split('.').pop() === ext && !changed.some((c) => sameFile(p, c)) && !goalText.includes(p);
    const uniq = (xs: string[]) => [...new Set(xs.filter(isCandidate))].sort();
    const picked = pickDistinct(
      rng,
      [
        { operator: 'agent_viewed_file', values: rng.shuffle(uniq(looked)) },
        { operator: 'agent_seen_file', values: rng.shuffle(uniq(seen)) },
        { operator: 'repo_file', values: rng.shuffle(uniq(ctx.corpus.repoFiles(t))) },
      ],
      (p) => p,
      gold,
      new Set(changed),
      ctx.choices - 1,
    );
    if (picked.length < ctx.choices - 1) return { drafts: [], skipped: ['too-few-files'] };
    return {
      drafts: [
        {
          kind: 'bug_locate_mcq',
          step: null,
          fields: { goal: t.task.goal, repo: t.environment.repo ?? t.source.repo ?? null },
          history: [],
          answerStem: 'The file that the fix changes is (',
          answerSuffix: ')',
          mcq: arrange(rng.fork('arrange'), gold, picked),
        },
      ],
      skipped: [],
    };
  },
};
