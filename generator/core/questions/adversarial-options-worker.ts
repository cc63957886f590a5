/**
 * Worker-thread entry for choosing a round's drafts (adversarial-options-thread.ts): chooses each
 * draft it holds against its fold's trees and posts the candidates to show back. The same
 * `chooseShown` as in the filter's thread, so the same choices bit for bit.
 */
import { serveJobs } from '../kernel/job-thread.js';
import { type CoreDraft, chooseShown } from './adversarial-options.js';
import type { ChooseJob } from './adversarial-options-thread.js';

let held: CoreDraft[] = [];

serveJobs<ChooseJob, number[][]>((job) => {
  if (job.drafts) held = job.drafts;
  return chooseShown(held, job.models);
});
