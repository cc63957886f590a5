import type { Rng } from '../../kernel/rng.js';
import type { Action, Trajectory } from '../../trajectories/types.js';
import type { DiffFile } from '../diff.js';
import type { CorpusIndex } from '../corpus.js';

/** A possible next step: what choices of plan / action questions are made of. */
export interface StepCandidate {
  plan: string;
  /** True when the plan came from the source (then text edits carry into it), false when derived from the action. */
  planGiven: boolean;
  action: Action;
  /** One line on why this option is wrong (distractors only). */
  reason?: string;
}

export interface StepOperatorContext {
  rng: Rng;
  trajectory: Trajectory;
  /** Index into `trajectory.steps` of the step being predicted. */
  position: number;
  gold: StepCandidate;
  corpus: CorpusIndex;
  /** Tool names the prompt offers; operators propose only steps that use them. */
  offered?: ReadonlySet<string>;
}

/** Proposes distractors for a next-step question; may return none when it does not apply. */
export interface StepOperator {
  name: string;
  description: string;
  propose(ctx: StepOperatorContext): StepCandidate[];
}

export interface PatchOperatorContext {
  rng: Rng;
  trajectory: Trajectory;
  gold: DiffFile[];
  goldText: string;
  /** Other files the agent looked at, for wrong-file edits. */
  otherPaths: string[];
  corpus: CorpusIndex;
  /** Which patch of the other trajectories to borrow: the fix or the test patch. */
  patchOf: 'fix' | 'test';
}

export interface PatchOperator {
  name: string;
  description: string;
  propose(ctx: PatchOperatorContext): string[];
}
