import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { CommandSpec } from '../command.js';
import { finding, type Finding } from '../../core/kernel/findings.js';
import { kernelFindings } from '../../core/catalog.js';

/** The package root, so the demo finds its built-in data from any working directory. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  // generator/cli/commands (tsx) or build/generator/cli/commands (compiled)
  while (!path.basename(dir).startsWith('generator')) dir = path.dirname(dir);
  const up = path.dirname(dir);
  return path.basename(up) === 'build' ? path.dirname(up) : up;
}

export interface DemoStep {
  title: string;
  argv: string[];
  /** Files a user should open after the demo. */
  outputs: string[];
}

/**
 * The main job, end to end, on the built-in example data: the same subcommands a user runs,
 * in pipeline order. Trajectory-side steps use the hand-written trajectories in fixtures/;
 * the prediction side uses fixtures/example (a synthetic IRT population with known truth).
 */
export function demoSteps(root: string, out: string, force: boolean): DemoStep[] {
  const fx = (...p: string[]) => path.join(root, 'fixtures', ...p);
  const o = (...p: string[]) => path.join(out, ...p);
  const f = force ? ['--force'] : [];
  return [
    { title: 'Normalize agent trajectories (every supported format) to canonical JSONL', argv: ['normalize', fx('canonical'), fx('trajectories', 'good'), '--report', fx('trajectories', 'reports', 'instance-verdicts.json'), '--out', o('trajectories.jsonl'), ...f], outputs: [o('trajectories.jsonl')] },
    { title: 'Build APTBench-style questions from the successful trajectories (audited by the next step)', argv: ['build', o('trajectories.jsonl'), '--out', o('questions.jsonl'), '--seed', 'demo', '--no-audit', ...f], outputs: [o('questions.jsonl')] },
    { title: 'Audit the questions (balance, leaks, shortcut baselines)', argv: ['audit', o('questions.jsonl')], outputs: [] },
    { title: 'Write the review page', argv: ['review', o('questions.jsonl'), '--out', o('review'), ...f], outputs: [o('review', 'review.html')] },
    { title: 'Emit an lm-evaluation-harness task suite', argv: ['emit', o('questions.jsonl'), '--out', o('tasks'), '--suite', 'aptpace_demo', ...f], outputs: [o('tasks')] },
    { title: 'Ingest per-instance source scores and agentic targets into a score store', argv: ['ingest', '--sources', fx('example', 'sources'), '--targets', fx('example', 'targets'), '--out', o('store'), ...f], outputs: [o('store')] },
    { title: 'Leave-one-model-out evaluation of PACE against baselines', argv: ['evaluate', '--store', o('store'), '--bootstrap', '50', '--out', o('evaluation'), ...f], outputs: [o('evaluation')] },
    { title: 'Fit PACE: select the proxy set and write the model file', argv: ['fit', '--store', o('store'), '--bootstrap', '100', '--out', o('fit'), ...f], outputs: [o('fit', 'model.json'), o('fit', 'samples.json')] },
    { title: 'Check the new checkpoint (the CI step), with a threshold', argv: ['check', '--model-file', o('fit', 'model.json'), '--model', 'new-checkpoint', '--store', o('store'), '--min-score', 'swe-sim=0.3', '--out', o('report'), ...f], outputs: [o('report', 'report.html'), o('report', 'summary.md'), o('report', 'result.json')] },
  ];
}

const demo: CommandSpec = {
  name: 'demo',
  summary: 'Run the whole pipeline on the built-in example data (normalize → build → audit → review → emit → ingest → evaluate → fit → check)',
  configure(cmd: Command) {
    cmd.option('--out <dir>', 'output folder', 'out/demo').option('--force', 'overwrite outputs of an earlier demo run');
  },
  async run(_args, opts, ctx) {
    const out = path.resolve(ctx.cwd, opts.out as string);
    const steps = demoSteps(packageRoot(), out, Boolean(opts.force));
    const findings: Finding[] = [];
    const report: Array<{ title: string; command: string; exitCode: number }> = [];
    let failed = false;
    for (const [i, step] of steps.entries()) {
      ctx.progress(`\n[${i + 1}/${steps.length}] ${step.title}\n$ aptpace ${step.argv.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
      let captured = '';
      const exitCode = await ctx.invoke([...(opts.quiet || ctx.json ? ['--quiet'] : []), ...step.argv], {
        stdout: (s) => (ctx.json ? (captured += s) : process.stdout.write(s)),
        stderr: (s) => (ctx.json ? (captured += s) : process.stderr.write(s)),
      });
      report.push({ title: step.title, command: `aptpace ${step.argv.join(' ')}`, exitCode });
      if (exitCode !== 0) {
        findings.push(finding(kernelFindings, 'demo-step-failed', {}, { step: step.title, exitCode, hint: exitCode === 1 && /exists/.test(captured) ? 'rerun with --force' : '' }));
        failed = true;
        break;
      }
    }
    const opened = steps.flatMap((s) => s.outputs);
    const text = failed
      ? 'demo stopped at a failing step (see above)'
      : ['', 'Demo finished. Open:', ...opened.map((p) => `  ${path.relative(ctx.cwd, p) || p}`)].join('\n');
    return { findings, data: { out, steps: report }, text };
  },
};

export default demo;
