import type { Command } from 'commander';
import { listOption } from '../options.js';
import { formatTable } from '../table.js';
import { UsageError, type CommandSpec } from '../command.js';
import { finding, type Finding } from '../../core/kernel/findings.js';
import { kernelFindings } from '../../core/catalog.js';
import { renderTally } from '../../core/kernel/render.js';
import { expandQuestionInputs as expandInputs } from '../question-inputs.js';
import { readQuestions } from '../../core/questions/read-questions.js';
import { appendAll } from '../../core/kernel/arrays.js';
import { isValidHarnessName } from '../../core/emit/names.js';
import { emitSuite, installIntoHarness, type EmitOptions, type EmitResult } from '../../core/emit/suite.js';
import { emitFindings } from '../../core/emit/findings.js';
import { AUDIT_FAILED_SUFFIX } from '../../core/questions/audit/verdict.js';

const emit: CommandSpec = {
  name: 'emit',
  summary: 'Compile questions into an lm-evaluation-harness task suite (--out DIR) or install it into a harness checkout (--harness CHECKOUT)',
  configure(cmd: Command) {
    cmd
      .argument('<questions...>', 'question JSONL files, folders of them, or glob patterns')
      .option('--out <dir>', 'write the suite into this folder')
      .option('--harness <checkout>', 'install the suite as lm_eval/tasks/<suite>/ of this lm-evaluation-harness checkout')
      .option('--suite <name>', 'suite (group) name, [A-Za-z0-9_-]', 'aptpace')
      .option('--scoring <how>', 'multiple-choice scoring: letter (continuation is the answer letter) or option (the option text)', 'letter')
      .addOption(listOption('--fewshot <file>', 'question JSONL file whose questions join the few-shot pool (never evaluated)'))
      .option('--fewshot-split', 'use the input questions marked split=fewshot as the few-shot pool')
      .option('--num-fewshot <n>', 'few-shot examples per prompt when a pool is given', '3')
      .option('--task-prefix <prefix>', 'prepend this to every task name (two suites with the same question kinds can then share an include path)')
      .option('--harness-version <version>', 'lm-eval version the suite targets', '0.4.13')
      .option('--weight-by-size', 'weight group scores by document count (default: the macro average over tasks, each task counting equally)')
      .option('--allow-failed-audit', 'emit a set whose build audit failed (a file named *.audit-failed.jsonl)')
      .option('--keep-going', 'emit the accepted questions even when some input lines were rejected (the exit code is still 1)')
      .option('--force', 'overwrite files in the target that aptpace did not write (or that were changed since)');
  },
  async run(args, opts, ctx) {
    if (Boolean(opts.out) === Boolean(opts.harness)) throw new UsageError('pass exactly one of --out DIR or --harness CHECKOUT');
    if (opts.scoring !== 'letter' && opts.scoring !== 'option') throw new UsageError(`--scoring must be letter or option, got ${opts.scoring}`);
    if (opts.fewshot && opts.fewshotSplit) throw new UsageError('pass at most one of --fewshot FILES and --fewshot-split');
    const numFewshot = Number(opts.numFewshot);
    if (!Number.isInteger(numFewshot) || numFewshot < 1) throw new UsageError(`--num-fewshot must be a positive integer, got ${opts.numFewshot}`);
    if (!/^\d+\.\d+(\.\d+)?([.-]?[A-Za-z0-9]+)*$/.test(String(opts.harnessVersion))) throw new UsageError(`--harness-version must look like 0.4.13, got ${opts.harnessVersion}`);

    if (!isValidHarnessName(String(opts.suite))) throw new UsageError(`--suite must be 1-100 characters of [A-Za-z0-9_-] starting with a letter or digit, got ${JSON.stringify(String(opts.suite))}`);
    const files = await expandInputs(ctx.vfs, args, ctx.cwd);
    if (files.length === 0) return { findings: [finding(kernelFindings, 'no-inputs', {}, { patterns: args.join(' ') })] };
    const failedAudit = files.filter((f) => AUDIT_FAILED_SUFFIX.test(f));
    if (failedAudit.length > 0 && !opts.allowFailedAudit) {
      return { findings: failedAudit.map((file) => finding(emitFindings, 'emit-audit-failed', { file }, { file })), data: { files: [] }, text: 'nothing written: an input failed its audit' };
    }
    const read = await readQuestions(ctx.vfs, files, { onFinding: ctx.streamFinding });
    ctx.progress(renderTally('questions', read.tally));
    const findings: Finding[] = [...read.findings];

    let fewshot: EmitOptions['fewshot'];
    let fewshotTally;
    if (opts.fewshot) {
      const pool = await readQuestions(ctx.vfs, await expandInputs(ctx.vfs, opts.fewshot as string[], ctx.cwd), { onFinding: ctx.streamFinding });
      appendAll(findings, pool.findings);
      fewshot = pool.questions;
      fewshotTally = pool.tally;
      ctx.progress(renderTally('few-shot questions', pool.tally));
    } else if (opts.fewshotSplit) fewshot = 'split';

    const rejected = read.tally.rejected + (fewshotTally?.rejected ?? 0);
    if (rejected > 0 && !opts.keepGoing) {
      return {
        findings,
        data: { tally: read.tally, fewshotTally, files: [] },
        text: `${renderTally('questions', read.tally)}\nnothing written: ${rejected} input line(s) were rejected (fix them, or pass --keep-going to emit the rest)`,
      };
    }

    const common = {
      suite: String(opts.suite),
      scoring: opts.scoring as 'letter' | 'option',
      fewshot,
      numFewshot,
      force: Boolean(opts.force),
      harnessVersion: String(opts.harnessVersion),
      taskPrefix: opts.taskPrefix === undefined ? undefined : String(opts.taskPrefix),
      weightBySize: Boolean(opts.weightBySize),
    };
    ctx.progress(`compiling ${read.questions.length} question(s) into suite ${common.suite}`);
    const result: EmitResult = opts.harness
      ? await installIntoHarness(ctx.vfs, read.questions, { ...common, checkout: String(opts.harness) })
      : await emitSuite(ctx.vfs, read.questions, { ...common, outDir: String(opts.out) });
    findings.push(...result.findings);
    // Each task counts equally in the macro average: one or two documents carry a whole task's weight.
    for (const t of result.tasks) if (t.docs > 0 && t.docs <= 2) findings.push(finding(emitFindings, 'emit-small-task', {}, { task: t.task, docs: t.docs }));
    return {
      findings,
      data: { tally: read.tally, fewshotTally, suiteDir: result.suiteDir, tasks: result.tasks, files: result.files, lmEvalCommand: result.lmEvalCommand || null },
      text: renderResult(result),
      quietText: result.files.length ? `wrote ${result.files.length} file(s) to ${result.suiteDir}` : 'nothing written',
    };
  },
};
export default emit;

function renderResult(r: EmitResult): string {
  if (r.files.length === 0) return r.findings.some((f) => f.code === 'emit-target-unwritable' && f.args.partial) ? 'the suite is half written (see the error above); rerun emit to repair it' : 'nothing written';
  const lines = [`wrote ${r.files.length} file(s) to ${r.suiteDir}`];
  lines.push(...formatTable(r.tasks.map((t) => [t.task, t.kind, `${t.docs} docs`, `${t.fewshot}-shot`]), { indent: '  ', align: ['left', 'left', 'right', 'left'] }));
  lines.push('run it with ($MODEL = the model to evaluate):', `  ${r.lmEvalCommand}`);
  return lines.join('\n');
}
