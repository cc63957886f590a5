/**
 * Worker-thread entry for drafting (generate-thread.ts): holds each build's corpus, as the
 * build's thread indexes it, and drafts the trajectories it is asked for with the same module,
 * context and random streams as the build's thread would.
 */
import { serveJobs } from '../kernel/job-thread.js';
import { Rng } from '../kernel/rng.js';
import type { Trajectory } from '../trajectories/types.js';
import type { CorpusIndex } from './corpus.js';
import { corporaByLanguage, draftTrajectory } from './drafting.js';
import type { GenerateJob } from './generate-thread.js';
import type { KindResult } from './types/module.js';

const builds = new Map<number, { usable: Trajectory[]; corpus: Map<string, CorpusIndex> }>();

serveJobs<GenerateJob, KindResult[] | true>((job) => {
  if (job.op === 'corpus') {
    const usable = job.trajectories as Trajectory[];
    builds.set(job.build, { usable, corpus: corporaByLanguage(usable) });
    return true;
  }
  if (job.op === 'release') {
    builds.delete(job.build);
    return true;
  }
  const build = builds.get(job.build);
  if (!build) throw new Error(`generate-worker: no corpus for build ${job.build}`);
  const root = new Rng(job.settings.seed);
  const { seed: _, ...settings } = job.settings;
  return job.indices.map((i) => {
    const result = draftTrajectory(job.kind, build.usable[i]!, root, build.corpus, settings);
    // The build's thread rebuilds each history from its own trajectory (generate-thread.ts).
    for (const d of result.drafts) d.history = [];
    return result;
  });
});
