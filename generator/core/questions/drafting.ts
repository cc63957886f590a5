/**
 * Drafting one trajectory, as the build's thread and the generate worker (generate-thread.ts)
 * both do it: one corpus per question language, and each (kind, trajectory) drafted by its
 * module with its own random stream, so a draft is the same whichever thread makes it.
 */
import type { Rng } from '../kernel/rng.js';
import type { Trajectory } from '../trajectories/types.js';
import { questionLanguage } from './build-keys.js';
import { CorpusIndex } from './corpus.js';
import type { QuestionKind } from './types.js';
import { QUESTION_TYPES } from './types/index.js';
import type { KindContext, KindResult } from './types/module.js';

/** The settings of a build's drafts (everything in a kind's context but the stream and the corpus). */
export type DraftContext = Omit<KindContext, 'rng' | 'corpus'>;

/** One corpus index per question language, over the build's usable trajectories. */
export function corporaByLanguage(usable: readonly Trajectory[]): Map<string, CorpusIndex> {
  const languages = [...new Set(usable.map(questionLanguage))].sort();
  return new Map(languages.map((l) => [l, new CorpusIndex(usable.filter((t) => questionLanguage(t) === l))]));
}

/** `kind`'s drafts from trajectory `t`, on the stream forked from `root` by kind and trajectory. */
export function draftTrajectory(kind: QuestionKind, t: Trajectory, root: Rng, corpora: ReadonlyMap<string, CorpusIndex>, settings: DraftContext): KindResult {
  return QUESTION_TYPES[kind].generate(t, { rng: root.fork(`${kind}/${t.traj_id}`), corpus: corpora.get(questionLanguage(t))!, ...settings });
}
