/**
 * Worker-thread entry for drafting (generate-thread.ts): holds each build's corpus, as the
 * build's thread indexes it, and drafts the trajectories it is asked for with the same module,
 * context and random streams as the build's thread would.
 */
import { serveJobs } from '../kernel/job-thread.js';
import { Rng } from '../kernel/rng.js';
import type { Trajectory } from '../trajectories/types.js';
import { questionLanguage } from './build-keys.js';
import { CorpusIndex } from './corpus.js';
import type { GenerateJob } from './generate-thread.js';
import { QUESTION_TYPES } from './types/index.js';
import type { KindResult } from './types/module.js';

const builds = new Map<number, { usable: Trajectory[]; corpus: Map<string, CorpusIndex> }>();

serveJobs<GenerateJob, KindResult[] | true>((job) => {
  if (job.op === 'corpus') {
    const usable = job.trajectories as Trajectory[];
    const languages = [...new Set(usable.map(questionLanguage))].sort();
    builds.set(job.build, { usable, corpus: new Map(languages.map((l) => [l, new CorpusIndex(usable.filter((t) => questionLanguage(t) === l))])) });
    return true;
  }
  if (job.op === 'release') {
    builds.delete(job.build);
    return true;
  }
  const build = builds.get(job.build);
  if (!build) throw new Error(`generate-worker: no corpus for build ${job.build}`);
  const module = QUESTION_TYPES[job.kind];
  const root = new Rng(job.settings.seed);
  const { choices, maxPerTrajectory, observationChars, planHistory } = job.settings;
  return job.indices.map((i) => {
    const t = build.usable[i]!;
    const result = module.generate(t, { rng: root.fork(`${job.kind}/${t.traj_id}`), corpus: build.corpus.get(questionLanguage(t))!, choices, maxPerTrajectory, observationChars, planHistory });
    // The build's thread rebuilds each history from its own trajectory (generate-thread.ts).
    for (const d of result.drafts) d.history = [];
    return result;
  });
});
