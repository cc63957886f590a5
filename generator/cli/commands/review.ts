import type { Command } from 'commander';
import { UsageError, type CommandSpec, type CommandContext, type CommandResult } from '../command.js';
import { finding, findingFactory, type Finding } from '../../core/kernel/findings.js';
import { kernelFindings } from '../../core/catalog.js';
import { renderTally } from '../../core/kernel/render.js';
import { OutputFolder, writeOutputFile } from '../../core/kernel/output.js';
import { readQuestions } from '../../core/questions/read-questions.js';
import { auditQuestions } from '../../core/questions/audit/index.js';
import type { Question } from '../../core/questions/types.js';
import {
  REVIEW_PAGE_MARKER,
  loadReviewStatus,
  mergeDecisions,
  renderReviewPage,
  reviewCoverage,
  reviewFindings,
  serializeStatus,
  staleFindings,
  type ReviewCoverage,
} from '../../core/questions/review/index.js';
import { expandInputs } from './audit.js';

const make = findingFactory(reviewFindings);
const PAGE = 'review.html';

const review: CommandSpec = {
  name: 'review',
  summary: 'Write a self-contained HTML review page for built questions, or apply exported decisions to a status file',
  configure(cmd: Command) {
    cmd
      .argument('<questions...>', 'question JSONL files (or glob patterns)')
      .option('--out <dir>', `write ${PAGE} into this folder`)
      .option('--status <file>', 'review status JSONL (approved / rejected / pending, keyed by question id)')
      .option('--apply <decisions>', 'merge a decisions JSONL exported from the page into --status')
      .option('--max-prompt-chars <n>', 'show at most this many prompt characters per question (0 = all)', '0')
      .option('--force', 'overwrite an existing file that this tool did not write; rewrite a status file with unreadable lines');
  },
  async run(args, opts, ctx) {
    if (Boolean(opts.out) === Boolean(opts.apply)) throw new UsageError('pass exactly one of --out DIR (write the page) or --apply DECISIONS.jsonl (update the status file)');
    if (opts.apply && !opts.status) throw new UsageError('--apply needs --status FILE: the status file the decisions are merged into');
    const maxPromptChars = Number(opts.maxPromptChars);
    if (!Number.isInteger(maxPromptChars) || maxPromptChars < 0) throw new UsageError(`--max-prompt-chars must be a non-negative integer, got ${opts.maxPromptChars}`);

    const files = await expandInputs(ctx.vfs, args, ctx.cwd);
    if (files.length === 0) return { findings: [finding(kernelFindings, 'no-inputs', {}, { patterns: args.join(' ') })] };
    const read = await readQuestions(ctx.vfs, files, { onFinding: ctx.streamFinding });
    ctx.progress(renderTally('questions', read.tally));
    return opts.apply
      ? apply(read.questions, read.findings, String(opts.apply), String(opts.status), Boolean(opts.force), ctx)
      : writePage(read.questions, read.findings, read.tally, String(opts.out), opts.status ? String(opts.status) : undefined, maxPromptChars, Boolean(opts.force), ctx);
  },
};
export default review;

function coverageText(c: ReviewCoverage, total: number): string {
  return `${total} questions: approved ${c.approved}, rejected ${c.rejected}, pending ${c.pending}, unreviewed ${c.unreviewed}${c.stale.length ? `; ${c.stale.length} stale decision(s) kept` : ''}`;
}

function pendingFindings(c: ReviewCoverage): Finding[] {
  const open = c.pending + c.unreviewed;
  return open ? [make('review-pending', {}, { count: open })] : [];
}

async function writePage(
  questions: Question[],
  readFindings: Finding[],
  tally: unknown,
  outDir: string,
  statusFile: string | undefined,
  maxPromptChars: number,
  force: boolean,
  ctx: CommandContext,
): Promise<CommandResult> {
  const status = statusFile ? await loadReviewStatus(ctx.vfs, statusFile, { onFinding: ctx.streamFinding }) : undefined;
  const statuses = status?.statuses ?? new Map();
  const coverage = reviewCoverage(questions, statuses);
  const audit = auditQuestions(questions);

  // Regenerating our own page is routine; any other file at that path is the user's.
  let ours = false;
  const folder = new OutputFolder(ctx.vfs, outDir, { force, owned: (rel) => ours && rel === PAGE });
  const page = await folder.resolve(PAGE);
  const existing = await ctx.vfs.stat(page);
  ours = existing?.isFile === true && (await ctx.vfs.readText(page)).includes(REVIEW_PAGE_MARKER);
  const html = renderReviewPage(questions, statuses, { findings: audit.findings, statusFile, maxPromptChars });
  const written = await folder.write(PAGE, html);

  return {
    findings: [...readFindings, ...(status?.findings ?? []), ...(statusFile ? staleFindings(coverage, statusFile) : []), ...pendingFindings(coverage)],
    data: { page: written, questions: questions.length, coverage, tally, statusFile: statusFile ?? null, auditVerdict: audit.report.verdict },
    text: `wrote ${written}\n${coverageText(coverage, questions.length)}\naudit: ${audit.report.verdict} (${audit.findings.length} finding(s) shown on the cards; run \`aptpace audit\` for the table)`,
  };
}

async function apply(questions: Question[], readFindings: Finding[], decisionsFile: string, statusFile: string, force: boolean, ctx: CommandContext): Promise<CommandResult> {
  const decisions = await loadReviewStatus(ctx.vfs, decisionsFile, { mustExist: true, onFinding: ctx.streamFinding });
  const current = await loadReviewStatus(ctx.vfs, statusFile, { onFinding: ctx.streamFinding });
  const findings: Finding[] = [...readFindings, ...decisions.findings, ...current.findings];
  const merged = mergeDecisions(
    current.statuses,
    decisions.statuses,
    new Set(questions.map((q) => q.id)),
    { file: decisionsFile, lines: decisions.lines },
  );
  findings.push(...merged.findings);
  const coverage = reviewCoverage(questions, merged.statuses);
  findings.push(...staleFindings(coverage, statusFile), ...pendingFindings(coverage));

  // Rewriting a status file with unreadable lines would silently drop them.
  if (current.tally.rejected > 0 && !force) {
    findings.push(make('review-status-not-rewritten', { file: statusFile }, { file: statusFile, rejected: current.tally.rejected }));
    return { findings, data: { statusFile, written: false, coverage }, text: `${statusFile} not updated` };
  }
  const missingDecisions = decisions.findings.some((f) => f.code === 'review-status-missing');
  if (missingDecisions) return { findings, data: { statusFile, written: false, coverage }, text: `${statusFile} not updated` };
  // The status file is review's own: rewritten without --force; a link at its name is followed.
  await writeOutputFile(ctx.vfs, statusFile, serializeStatus(merged.statuses), true);
  return {
    findings,
    data: { statusFile, written: true, changed: merged.changed, unchanged: merged.unchanged, unknown: merged.unknown, decisions: decisions.tally, coverage },
    text: `updated ${statusFile}: ${merged.changed} changed, ${merged.unchanged} unchanged, ${merged.unknown} unknown id(s) not applied\n${coverageText(coverage, questions.length)}`,
  };
}
