import * as path from 'node:path';
import type { Command } from 'commander';
import { withProgress } from '../progress.js';
import { UsageError, type CommandSpec } from '../command.js';
import type { Finding } from '../../core/kernel/findings.js';
import { finding, findingFactory } from '../../core/kernel/findings.js';
import { kernelFindings } from '../../core/catalog.js';
import { openOutputFile, writeOutputLines } from '../../core/kernel/output.js';
import { refuseInputAsOutput } from '../../core/kernel/confine.js';
import { stableStringify } from '../../core/kernel/stable-json.js';
import { appendAll } from '../../core/kernel/arrays.js';
import { BUILD_DEFAULTS, type BuildOptions, buildQuestions, countByKind, lengthBucketsByKind } from '../../core/questions/build.js';
import { questionFindings } from '../../core/questions/findings.js';
import { DEFAULT_KINDS, QUESTION_KINDS, isQuestionKind } from '../../core/questions/kinds.js';
import { TOKENIZERS, isTokenizerName } from '../../core/questions/tokenizer.js';
import type { Question } from '../../core/questions/types.js';
import type { AuditReport } from '../../core/questions/audit/index.js';
import { auditFailedName } from '../../core/questions/audit/verdict.js';
import { ADVERSARY_MIN_QUESTIONS } from '../../core/questions/audit/adversary.js';
import { describeCell } from '../../core/questions/audit/sample-size.js';
import { formatNames, readTrajectories } from '../../core/trajectories/read.js';
import { DOMAINS } from '../../core/trajectories/types.js';
import { domainLanguageFrom, LANGUAGES } from './inspect.js';
import { deprecatedAlias, listOption } from '../options.js';

const make = findingFactory(questionFindings);

function positiveInt(value: unknown, flag: string, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be an integer in ${min}..${max === Number.MAX_SAFE_INTEGER ? '∞' : max}, got ${value}`);
  return n;
}

function summary(questions: ReadonlyArray<Pick<Question, 'kind' | 'length_bucket'>>, skipped: Record<string, number>, out: string, trajectories: number): string {
  const lines: string[] = [];
  const counts = countByKind(questions);
  lines.push(`built ${questions.length} questions from ${trajectories} trajectories → ${out}`);
  const width = Math.max(4, ...QUESTION_KINDS.map((k) => k.length));
  for (const kind of QUESTION_KINDS) {
    const qs = questions.filter((q) => q.kind === kind);
    if (!counts[kind] && !Object.keys(skipped).some((k) => k.startsWith(`${kind}:`))) continue;
    const bucketText = Object.entries(lengthBucketsByKind(qs)[kind] ?? {}).map(([b, n]) => `${b} ${n}`).join(', ');
    lines.push(`  ${kind.padEnd(width)}  ${String(counts[kind] ?? 0).padStart(5)}${bucketText ? `  (${bucketText})` : ''}`);
  }
  const skips = Object.entries(skipped).sort(([a], [b]) => a.localeCompare(b));
  if (skips.length) {
    lines.push('skipped:');
    for (const [key, n] of skips) lines.push(`  ${key.padEnd(width + 22)}  ${String(n).padStart(5)}`);
  }
  return lines.join('\n');
}

const build: CommandSpec = {
  name: 'build',
  summary: 'Build APTBench-style questions (MCQ and completion) from successful trajectories',
  configure(cmd: Command) {
    const reportOption = listOption('--report <file>', 'evaluation report / label file giving success evidence');
    cmd
      .argument('<inputs...>', 'trajectory files, directories or globs (any supported format)')
      .requiredOption('--out <file>', 'questions JSONL to write')
      .option('--seed <seed>', 'seed for every random choice', BUILD_DEFAULTS.seed)
      .option('--kinds <list>', `comma-separated kinds (default all but ${QUESTION_KINDS.filter((k) => !DEFAULT_KINDS.includes(k)).join(', ')}): ${QUESTION_KINDS.join(', ')}`)
      .option('--choices <n>', 'options per multiple-choice question', String(BUILD_DEFAULTS.choices))
      .option('--budget-tokens <n>', 'token budget of one prompt, few-shot examples included', String(BUILD_DEFAULTS.budgetTokens))
      .option('--min-tokens <n>', 'target a length bucket: skip questions whose prompt, with the whole available history, is shorter', '0')
      .option('--tokenizer <name>', `offline tokenizer: ${TOKENIZERS.join(', ')}`, BUILD_DEFAULTS.tokenizer)
      .option('--templates <dir>', 'folder of .hbs prompt templates overriding the shipped ones')
      .option('--shots <n>', 'solved examples in each prompt (0 = zero-shot)', String(BUILD_DEFAULTS.shots))
      .option('--max-per-trajectory <n>', 'most questions of one kind per trajectory', String(BUILD_DEFAULTS.maxPerTrajectory))
      .option('--observation-chars <n>', 'cap on one observation before budgeting (head and tail kept)', String(BUILD_DEFAULTS.observationChars))
      .option('--plan-history <style>', 'earlier steps in plan questions: plans (one line each) or thought-action', 'plans')
      .addOption(reportOption)
      .option('--format <name>', 'trajectory format (skip auto-detection)')
      .option('--domain <domain>', `set the domain of every trajectory read: ${DOMAINS.join(', ')}`)
      .option('--language <lang>', `set the natural language of every trajectory read: ${LANGUAGES.join(', ')}`)
      .option('--include-unproven', 'also use trajectories whose success has no evidence')
      .option('--require-review <file>', 'keep only questions approved in this review status file')
      .option('--llm-endpoint <url>', 'OpenAI-compatible endpoint for plan rewriting (off by default)')
      .option('--llm-model <name>', 'model name for --llm-endpoint')
      .option('--llm-cache <dir>', 'cache folder for model responses', '.aptpace-cache/llm')
      .option('--llm-api-key-env <name>', 'environment variable holding the API key')
      .option('--no-adversarial-filter', 'show the distractors as drafted, without re-choosing them against the learned adversary')
      .option('--no-audit', 'skip the question audit (letter balance, leaks, shortcut baselines)')
      .option('--max-shortcut-gain <points>', 'fail when the combined shortcut rule beats chance by more than this many points, significantly', '10')
      .option('--strict', 'warnings (such as shortcut gains not yet significant) fail the build too')
      .option('--force', 'overwrite --out if it exists');
    deprecatedAlias(cmd, reportOption, '--reports <file>');
  },
  async run(args, opts, ctx) {
    const out = path.resolve(ctx.cwd, String(opts.out));
    if (!/\.jsonl$/i.test(out)) throw new UsageError(`--out must name a .jsonl file, got ${opts.out}`);
    // Even with --force, --out never replaces a trajectory file the build reads.
    await refuseInputAsOutput(ctx.vfs, out, args.map((a) => path.resolve(ctx.cwd, a)));
    const kinds = opts.kinds ? String(opts.kinds).split(',').map((k) => k.trim()).filter(Boolean) : undefined;
    for (const k of kinds ?? []) if (!isQuestionKind(k)) throw new UsageError(`unknown kind ${k}; expected some of ${QUESTION_KINDS.join(', ')}`);
    if (!isTokenizerName(String(opts.tokenizer))) throw new UsageError(`unknown --tokenizer ${opts.tokenizer}; expected ${TOKENIZERS.join(', ')}`);
    if (opts.planHistory !== 'plans' && opts.planHistory !== 'thought-action') throw new UsageError(`--plan-history must be plans or thought-action, got ${opts.planHistory}`);
    if (opts.llmEndpoint && !opts.llmModel) throw new UsageError('--llm-endpoint needs --llm-model');
    const maxShortcutGain = Number(opts.maxShortcutGain);
    if (!Number.isFinite(maxShortcutGain) || maxShortcutGain < 0) throw new UsageError(`--max-shortcut-gain must be a non-negative number of points, got ${opts.maxShortcutGain}`);
    const options: BuildOptions = {
      seed: String(opts.seed),
      kinds: kinds as BuildOptions['kinds'],
      choices: positiveInt(opts.choices, '--choices', 2, 26),
      budgetTokens: positiveInt(opts.budgetTokens, '--budget-tokens', 256),
      minTokens: positiveInt(opts.minTokens, '--min-tokens', 0, Number(opts.budgetTokens)),
      tokenizer: opts.tokenizer,
      shots: positiveInt(opts.shots, '--shots', 0, 16),
      maxPerTrajectory: positiveInt(opts.maxPerTrajectory, '--max-per-trajectory'),
      observationChars: positiveInt(opts.observationChars, '--observation-chars', 100),
      includeUnproven: Boolean(opts.includeUnproven),
      adversarialFilter: opts.adversarialFilter !== false,
      planHistory: opts.planHistory,
      vfs: ctx.vfs,
      templatesDir: opts.templates ? path.resolve(ctx.cwd, String(opts.templates)) : undefined,
    };
    if (options.templatesDir && !(await ctx.vfs.stat(options.templatesDir))?.isDirectory) throw new UsageError(`--templates ${opts.templates} is not a folder`);
    const domainLanguage = domainLanguageFrom(opts);
    if (opts.format !== undefined && !formatNames().includes(opts.format)) throw new UsageError(`unknown --format ${opts.format}; expected one of ${formatNames().join(', ')}`);
    // Fail before the (possibly long) build if the output cannot be written.
    if (!opts.force && (await ctx.vfs.stat(out))) return { findings: [findingFor('output-exists', out)], data: null };
    const failedOut = auditFailedName(out);
    if (opts.audit !== false && !opts.force && (await ctx.vfs.stat(failedOut))) return { findings: [findingFor('output-exists', failedOut)], data: null };

    const findings: Finding[] = [];
    ctx.progress(`reading trajectories from ${args.join(', ')}`);
    const read = await withProgress(ctx, 'read', (onProgress) =>
      readTrajectories(ctx.vfs, args, { reports: opts.report ? [].concat(opts.report) : undefined, format: opts.format, ...domainLanguage, onFinding: ctx.streamFinding }, onProgress),
    );
    // Bounded (the rest of a bulk code went to --findings-file as it was read).
    appendAll(findings, read.findings);

    if (opts.llmEndpoint) {
      const { createLlmClient } = await import('../../core/llm/client.js');
      const client = createLlmClient({
        endpoint: String(opts.llmEndpoint),
        model: String(opts.llmModel),
        cacheDir: path.resolve(ctx.cwd, String(opts.llmCache)),
        apiKeyEnv: opts.llmApiKeyEnv,
        vfs: ctx.vfs,
      });
      options.llm = { model: client.model, complete: (p, o) => client.complete(p, o) };
    }

    ctx.progress(`building questions from ${read.trajectories.length} trajectories`);
    const auditModule = opts.audit !== false ? await import('../../core/questions/audit/index.js') : null;
    // Without --require-review (which needs the whole set to filter), each kind's questions are
    // audited and written as soon as they are built and then let go: the build holds one kind's
    // questions at a time, not every prompt of the output at once.
    const streaming = !opts.requireReview;
    const kept: Array<Pick<Question, 'kind' | 'length_bucket'>> = [];
    // Audited task by task, then reported in task order: the same findings, in the same order,
    // naming the same file records, as `aptpace audit` on the written file.
    const auditByTask = new Map<string, { findings: Finding[]; report: AuditReport }>();
    const auditBatch = (batch: Question[], firstRecord: number) => {
      if (!auditModule) return;
      const tasks = new Map<string, { questions: Question[]; records: number[] }>();
      batch.forEach((q, i) => {
        const entry = tasks.get(q.task) ?? { questions: [], records: [] };
        entry.questions.push(q);
        entry.records.push(firstRecord + i);
        tasks.set(q.task, entry);
      });
      for (const [task, { questions: taskQuestions, records }] of tasks) auditByTask.set(task, auditModule.auditQuestions(taskQuestions, { maxShortcutGain, records }));
    };
    let built: Awaited<ReturnType<typeof buildQuestions>>;
    if (streaming) {
      const writer = await openOutputFile(ctx.vfs, out, { force: Boolean(opts.force) });
      try {
        const onQuestions = async (batch: Question[]) => {
          auditBatch(batch, kept.length);
          for (const q of batch) {
            await writer.write(`${stableStringify(q)}\n`);
            kept.push({ kind: q.kind, length_bucket: q.length_bucket });
          }
        };
        built = await withProgress(ctx, 'build', (onProgress) => buildQuestions(read.trajectories, { ...options, onQuestions }, onProgress));
        await writer.commit();
      } finally {
        await writer.abort();
      }
      appendAll(findings, built.findings);
    } else {
      built = await withProgress(ctx, 'build', (onProgress) => buildQuestions(read.trajectories, options, onProgress));
      appendAll(findings, built.findings);
      const { loadReviewStatus, filterApproved, reviewCoverage, staleFindings } = await import('../../core/questions/review/index.js');
      const review = await loadReviewStatus(ctx.vfs, path.resolve(ctx.cwd, String(opts.requireReview)), { mustExist: true, onFinding: ctx.streamFinding });
      findings.push(...review.findings);
      findings.push(...staleFindings(reviewCoverage(built.questions, review.statuses), String(opts.requireReview)));
      const approved = filterApproved(built.questions, review.statuses);
      if (approved.length < built.questions.length) findings.push(make('build-review-unapproved', { file: String(opts.requireReview) }, { count: built.questions.length - approved.length, file: String(opts.requireReview) }));
      auditBatch(approved, 0);
      await writeOutputLines(ctx.vfs, out, (function* () {
        for (const q of approved) yield stableStringify(q);
      })(), { force: Boolean(opts.force) });
      for (const q of approved) kept.push({ kind: q.kind, length_bucket: q.length_bucket });
    }
    const audited = [...auditByTask].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
    for (const r of audited) findings.push(...r.findings);
    const audit = auditModule ? (auditModule.mergeAuditReports(audited.map((r) => r.report)) ?? null) : null;
    const questions = kept;
    // A set whose audit failed is not left under the name a finished set would have.
    let written = String(opts.out);
    if (audit?.verdict === 'fail') {
      await ctx.vfs.rename(out, failedOut);
      written = auditFailedName(String(opts.out));
      const failing = audit.tasks.filter((t) => t.verdict === 'fail').map((t) => t.task).join(', ');
      findings.push(make('build-audit-failed', { file: written }, { file: written, out: String(opts.out), tasks: failing }));
    }
    const text = [summary(questions, built.skipped, written, read.trajectories.length), ...(audit ? verdictLines(audit) : [])].join('\n');
    return {
      findings,
      data: { out: String(opts.out), questions: questions.length, by_kind: countByKind(questions), length_buckets: lengthBucketsByKind(questions), skipped: built.skipped, trajectories: read.tally, audit },
      text,
      strict: Boolean(opts.strict),
    };
  },
};

/**
 * One verdict line per audited task and one overall: the gate's conclusion, with the learned
 * adversary's held-out accuracy per language beside chance.
 */
export function verdictLines(audit: AuditReport): string[] {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = audit.tasks.map((t) => {
    const cells = (t.adversary?.cells ?? [])
      .filter((c) => c.language !== 'all')
      .map((c) => `${c.language} ${pct(c.accuracy)} of ${c.n} vs chance ${pct(c.chance)}${c.n < ADVERSARY_MIN_QUESTIONS ? `, too few to gate (under ${ADVERSARY_MIN_QUESTIONS})` : ''}`);
    const notes = [
      ...(t.smallCells.length ? [`too few to judge: ${t.smallCells.map(describeCell).join(', ')} scored, under ${ADVERSARY_MIN_QUESTIONS}`] : []),
      ...(cells.length ? [`learned adversary ${cells.join('; ')}`] : []),
    ];
    return `verdict ${t.task}: ${t.verdict.toUpperCase()}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  });
  lines.push(`verdict overall: ${audit.verdict.toUpperCase()}`);
  return lines;
}

function findingFor(code: 'output-exists', target: string): Finding {
  return finding(kernelFindings, code, { file: target }, { target });
}

export default build;
