import type { Trajectory } from '../../trajectories/types.js';
import { entityTokens, stepActionTokens } from '../context.js';
import { candidateOf } from '../plans.js';
import { toolOf } from '../tools.js';
import { replaceLeavingPlan, substitutionRepeats, withAction } from './edit.js';
import { argumentGrounding, priorText } from './grounding.js';
import { type EntityType, entitiesIn, priorEntities, priorLowerCase, sameShape } from './off-target-argument.js';
import { sameNameClass } from './name-class.js';
import type { StepCandidate, StepOperator } from './types.js';
import { topicContext, topicShares } from '../types/cues.js';

/**
 * Negative sampling by similarity: a real step of one of the most similar other trajectories
 * (shared files, identifiers, entities and tools; found through the corpus's sketch index, so
 * the cost does not grow with the corpus), the step that best matches where this trajectory
 * stands now. Off-topic steps of unrelated tasks are eliminable on sight; these are not.
 */
/** Per step of a trajectory (never mutated once read): its tool, its candidate form and whether its plan reads as Chinese; a similar trajectory's steps are read for many anchors. */
const stepFacts = new WeakMap<object, StepFacts>();

interface StepFacts {
  tool: string | null;
  c: ReturnType<typeof candidateOf>;
  chinese: boolean;
  /** Entities of the step's plan and action, longest first; read when the step is adapted (once per anchor it is borrowed for). */
  entities?: ReadonlyArray<{ text: string; type: EntityType }>;
}

/** A step in another language than the trajectory's is eliminable on sight. */
function chinese(text: string): boolean {
  return /[\u3400-\u9fff]/.test(text) && (text.match(/[\u3400-\u9fff]/g)?.length ?? 0) >= (text.match(/[A-Za-z]/g)?.length ?? 0) / 4;
}

export const borrowedStep: StepOperator = {
  name: 'borrowed_step',
  description: 'a real step of the most similar other trajectory (negative sampling by similarity)',
  propose({ trajectory, position, corpus, offered, gold }) {
    const here = entityTokens([trajectory.task.goal, ...trajectory.steps.slice(Math.max(0, position - 2), position).map((s) => s.action.text)].join('\n'));
    // The candidate with its reason is made only for the few kept (below): most steps looked at are not.
    const scored: Array<{ facts: StepFacts; other: Trajectory; rank: number; score: number; key: string }> = [];
    const wantChinese = chinese(trajectory.task.goal);
    for (const [rank, other] of corpus.similar(trajectory).entries()) {
      other.steps.forEach((step, j) => {
        if (step.action.kind === 'finish' || step.action.kind === 'message' || j === 0) return;
        let facts = stepFacts.get(step);
        if (facts === undefined) {
          const c = candidateOf(step);
          stepFacts.set(step, (facts = { tool: toolOf(step.action), c, chinese: chinese(c.plan) }));
        }
        const { tool } = facts;
        if (offered && (!tool || !offered.has(tool))) return;
        if (facts.chinese !== wantChinese) return;
        let shared = 0;
        for (const w of stepActionTokens(other, j)) if (here.has(w)) shared++;
        scored.push({ facts, other, rank, score: shared, key: `${other.traj_id}\u0000${j}` });
      });
    }
    const prior = priorEntities(trajectory, position);
    const priorTexts = new Set(prior.map((e) => e.text));
    // Most similar trajectory first; within it, after adaptation, the most on-topic step (by the
    // audit's own topic score): a borrowed step still speaking of its own task's subjects is the odd
    // one out to "pick the most on-topic option", and the cue balancing needs on-topic ones.
    const context = topicContext([trajectory.task.goal, ...trajectory.steps.slice(0, position).flatMap((s) => [s.plan ?? '', s.thought ?? '', s.action.text, (s.observation ?? '').slice(0, 6000)])]);
    const seen = priorText(trajectory, position);
    // Argument grounding is measured on deep-research runs (a search whose words the context never
    // showed). On a small SWE task it leaves mostly near-copies of the gold, which "most similar"
    // then finds; borrowed SWE steps keep their own files and commands either way.
    const grounded = trajectory.domain === 'deep_research';
    scored.sort((a, b) => a.rank - b.rank || b.score - a.score || (a.key < b.key ? -1 : 1));
    const made: Array<{ c: StepCandidate; order: number; rank: number; share: number; outOfBand: number }> = [];
    let kept = 0;
    let lastRank = -1;
    for (const [order, x] of scored.slice(0, 48).entries()) {
      // Candidates are ranked below by band first and then by source rank: once KEPT in-band
      // candidates of the ranks looked at are made, no candidate of a later rank can be kept, and
      // adapting it (the costly part) is skipped.
      if (kept >= KEPT && x.rank > lastRank) break;
      lastRank = x.rank;
      const borrowed: StepCandidate = { ...x.facts.c, reason: `a step of another task (${x.other.task.instance_id}), not a continuation of this trajectory` };
      x.facts.entities ??= entitiesIn(`${borrowed.plan}\n${borrowed.action.text}`).sort((a, b) => b.text.length - a.text.length);
      const c = adapt(borrowed, x.facts.entities, prior, priorTexts, () => priorLowerCase(trajectory, position));
      // A borrowed step still searching with its own task's words is told from the gold by
      // whether its arguments are in the context (most golds have all of them there).
      if (grounded && argumentGrounding(c, seen) < MIN_ARGUMENT_GROUNDING) continue;
      const outOfBand = lengthBand(c, gold);
      if (outOfBand === 0) kept++;
      made.push({ c, order, rank: x.rank, share: topicShares([`${c.plan}\n${c.action.text}`], context)[0]!, outOfBand });
    }
    // A step a little shorter than the gold first (a borrowed step is usually longer than the
    // real one, so "never pick the longest" would be a rule); then similarity of the source
    // trajectory: a step of an unrelated task that happens to share words is exactly the
    // off-topic distractor this operator must not pick.
    return made
      .sort((a, b) => a.outOfBand - b.outOfBand || a.rank - b.rank || b.share - a.share || a.order - b.order)
      .slice(0, KEPT)
      .map((x) => x.c);
  },
};

/**
 * 0 when a candidate's plan and action are 0.6–1.1 times the gold's length, else 1. The band
 * leans short: the gold is the longest of K options only if every distractor is shorter, so
 * for "pick the longest" to find it 1/K of the time each distractor must be shorter than the
 * gold more often than not.
 */
function lengthBand(c: StepCandidate, gold: StepCandidate): number {
  const ratio = (c.plan.length + c.action.text.length + 1) / (gold.plan.length + gold.action.text.length + 1);
  return ratio >= 0.6 && ratio <= 1.1 ? 0 : 1;
}

/** Borrowed steps proposed per anchor. */
const KEPT = 6;

/** Least share of a borrowed step's argument words, after adaptation, that the context must show. */
const MIN_ARGUMENT_GROUNDING = 0.8;

/** Entities of a borrowed step replaced by this trajectory's: enough that it speaks of this task's subjects. */
const MAX_ADAPTED = 4;

/**
 * Adapts a borrowed step to this trajectory: up to MAX_ADAPTED of its entities this trajectory never
 * met (another person, page, file) become entities of the same kind this trajectory did meet,
 * so the step is about this task's subjects and only reasoning about the step rejects it.
 */
function adapt(c: StepCandidate, entities: ReadonlyArray<{ text: string; type: EntityType }>, prior: ReturnType<typeof priorEntities>, priorNames: ReadonlySet<string>, lowerCase: () => ReadonlySet<string>): StepCandidate {
  let out = c;
  const used = new Set<string>();
  let changed = 0;
  // `entities` longest first, and never a part of an entity already replaced ("Rutherford" of "Ernest Rutherford").
  const replaced: string[] = [];
  for (const e of entities) {
    if (changed >= MAX_ADAPTED) break;
    if (priorNames.has(e.text) || e.type === 'number' || replaced.some((r) => r.includes(e.text))) continue;
    // Never one that would repeat a word next to where it lands ("first president of President").
    const to = prior.find(
      (p) =>
        p.type === e.type &&
        sameShape(p.text, e.text) &&
        !used.has(p.text) &&
        !out.action.text.includes(p.text) &&
        (e.type !== 'name' || sameNameClass(e.text, p.text, lowerCase())) &&
        !substitutionRepeats(out, e.text, p.text),
    );
    if (!to) continue;
    used.add(to.text);
    replaced.push(e.text);
    // A derived plan is read only at the end: it is derived once, from the last action.
    out = replaceLeavingPlan(out, e.text, to.text);
    changed++;
  }
  return { ...(changed > 0 ? withAction(out, out.action) : out), reason: c.reason };
}
