/** How a build names and keys its questions: near-duplicate identity across overlapping rows, and the language a trajectory is asked in. */
import { sha256 } from '../kernel/stable-json.js';
import type { Trajectory } from '../trajectories/types.js';
import { normaliseChoice } from './normalise.js';
import type { QuestionDraft } from './types/index.js';

/** Same goal, same steps shown, same gold: the identity of a question across overlapping rows. */
export function nearDuplicateKey(kind: string, d: QuestionDraft): string {
  const gold = d.mcq ? d.mcq.choices[d.mcq.gold]! : (d.completion?.targets ?? []).join('\u0001');
  const steps = d.history.map((v) => `${normaliseChoice(v.plan)}\u0002${normaliseChoice(v.action)}`);
  return sha256([kind, normaliseChoice(String(d.fields.goal ?? '')), ...steps, normaliseChoice(gold)].join('\u0000'));
}

/**
 * The language a trajectory's questions are written in: the reader's (or `--language`'s)
 * `task.language` when it is one we have templates for, else detected from the goal.
 */
export function questionLanguage(t: Trajectory): 'en' | 'zh' {
  const given = t.task.language;
  return given === 'en' || given === 'zh' ? given : languageOf(t.task.goal);
}

const CJK = /[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]/gu;
const LATIN = /[A-Za-z]/g;

/**
 * `zh` when CJK characters make up at least a fifth of the letters (a CJK character carries
 * about a word, a Latin word about five letters, so this is roughly "half the words"): an
 * English question naming 爱因斯坦 stays English. The one detector for templates and labels.
 */
export function languageOf(text: string): 'en' | 'zh' {
  const cjk = text.match(CJK)?.length ?? 0;
  const latin = text.match(LATIN)?.length ?? 0;
  return cjk > 0 && cjk >= 0.2 * (cjk + latin) ? 'zh' : 'en';
}

/**
 * The research question or issue each trajectory works on, across runs, agents and languages:
 * the learned adversary's folds (the build's filter and the audit) keep each group whole, so a
 * question is never judged by a model trained on another run of its own research question.
 * Trajectories share a group when they share an instance id, a goal (compared without case,
 * spacing or punctuation: the same issue filed under another id; a goal more than
 * GENERIC_GOAL_RUNS instance ids share is a generic instruction such as "Set up the
 * environment.", not one issue, and joins nothing), or, for InfoDeepSeek runs,
 * the question index APTBench records (`traj_id`: every agent's run of a question and its
 * Chinese translation carry the same one, each under its own `uuid`). A group is named by the
 * least instance id (else trajectory id) among its members, so adding trajectories of other
 * questions never renames it.
 */
export function sourceGroups(trajectories: readonly Trajectory[]): Map<Trajectory, string> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    for (let at = x; at !== root; ) {
      const next = parent.get(at)!;
      parent.set(at, root);
      at = next;
    }
    return root;
  };
  const add = (x: string) => {
    if (!parent.has(x)) parent.set(x, x);
  };
  // Node names: `i:` an instance id (the group's name when it is the least), `g:` a goal, `q:` a question index.
  const union = (a: string, b: string) => {
    add(a);
    add(b);
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    // The root is the least instance-id node, so the group's name is its least member.
    const keep = ra.startsWith('i:') && (!rb.startsWith('i:') || ra < rb) ? ra : rb;
    parent.set(keep === ra ? rb : ra, keep);
  };
  const base = (t: Trajectory) => `i:${t.task.instance_id || t.traj_id}`;
  const goals = trajectories.map((t) => goalKey(t.task.goal));
  const idsByGoal = new Map<string, Set<string>>();
  trajectories.forEach((t, j) => {
    if (goals[j] === '') return;
    const ids = idsByGoal.get(goals[j]!);
    if (ids) ids.add(base(t));
    else idsByGoal.set(goals[j]!, new Set([base(t)]));
  });
  trajectories.forEach((t, j) => {
    add(base(t));
    const goal = goals[j]!;
    if (goal !== '' && idsByGoal.get(goal)!.size <= GENERIC_GOAL_RUNS) union(base(t), `g:${goal}`);
    const index = t.source.framework === 'infodeepseek' ? t.extra?.source_traj_id : undefined;
    if (typeof index === 'string' || typeof index === 'number') union(base(t), `q:${String(index)}`);
  });
  return new Map(trajectories.map((t) => [t, find(base(t)).slice(2)]));
}

/** More instance ids than this sharing one goal: the goal is a generic instruction, not one issue or question. */
export const GENERIC_GOAL_RUNS = 8;

/** A goal compared without case, spacing or punctuation. */
export function goalKey(goal: string): string {
  return goal.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}
