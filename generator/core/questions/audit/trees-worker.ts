/**
 * Worker-thread entry for tree fits (trees-thread.ts): runs `fitBoostedFlat` on the rows it is
 * sent and posts the model back. The same function as in the asking thread, so the same trees bit for bit.
 */
import { serveJobs } from '../../kernel/job-thread.js';
import { type BoostedModel, fitBoostedFlat } from './boosted-trees.js';
import type { TreesJob } from './trees-thread.js';

serveJobs<TreesJob, BoostedModel>((job) => fitBoostedFlat(job.x, job.width, job.y));
