import type { FindingCatalog } from './kernel/findings.js';
import { trajectoryFindings } from './trajectories/findings.js';
import { questionFindings } from './questions/findings.js';
import { auditFindings } from './questions/audit/findings.js';
import { reviewFindings } from './questions/review/findings.js';
import { logsFindings } from './logs/findings.js';
import { emitFindings } from './emit/findings.js';
import { paceFindings } from './pace/findings.js';
import { checkFindings } from './report/check-findings.js';
import { workflowFindings } from './workflow/findings.js';
import { fsFindings } from './kernel/fs-findings.js';

/** Codes the kernel and CLI raise themselves. */
export const kernelFindings = {
  'output-exists': {
    severity: 'error',
    title: 'Output exists',
    message: (a) => `${a.target} already exists; pass --force to overwrite it`,
  },
  'output-outside-root': {
    severity: 'error',
    title: 'Write outside the output folder',
    message: (a) => `refusing to write ${a.target}: it is outside the output folder`,
  },
  'output-is-input': {
    severity: 'error',
    title: 'Output is an input',
    message: (a) => `refusing to write ${a.target}: it is also an input of this command, and writing it would lose what is read from it`,
  },
  'output-locked': {
    severity: 'error',
    title: 'Output folder is being written',
    message: (a) => `refusing to write ${a.target}: another aptpace process is writing there; wait for it to finish, or delete its .aptpace.lock if no aptpace process is running`,
  },
  'demo-step-failed': {
    severity: 'error',
    title: 'Demo step failed',
    message: (a) => `demo step "${a.step}" exited with ${a.exitCode}${a.hint ? `; ${a.hint}` : ''}`,
  },
  'no-inputs': {
    severity: 'error',
    title: 'No inputs',
    message: (a) => `no input files matched ${a.patterns}`,
  },
} satisfies FindingCatalog;

/**
 * Every domain's catalogue, in one ordered list. A domain adds one line here; render.ts
 * is the only reader.
 */
export const findingCatalogs: FindingCatalog[] = [kernelFindings, fsFindings, trajectoryFindings, questionFindings, auditFindings, reviewFindings, logsFindings, emitFindings, paceFindings, checkFindings, workflowFindings];

export function lookupFinding(code: string) {
  for (const c of findingCatalogs) if (code in c) return c[code];
  return undefined;
}
