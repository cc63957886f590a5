import type { Command } from 'commander';
import { UsageError, type CommandSpec } from '../command.js';
import { deprecatedAlias, listOption } from '../options.js';
import { FindingCollector } from '../../core/kernel/finding-collector.js';
import { DOMAINS } from '../../core/trajectories/types.js';
import { formatNames, streamTrajectories, tallyOf, TALLY_CODES, type FileSummary, type ReadTrajectoriesOptions } from '../../core/trajectories/read.js';
import { describeSuccess, totalsOf } from '../../core/trajectories/summary.js';
import { renderTally } from '../../core/kernel/render.js';
import type { Tally } from '../../core/kernel/findings.js';
import { formatTable } from '../table.js';

const inspect: CommandSpec = {
  name: 'inspect',
  summary: 'Per trajectory file: detected format, steps, success and its evidence, token estimate',
  configure(cmd: Command) {
    trajectoryInputOptions(cmd.argument('<inputs...>', 'trajectory files, directories (walked recursively) or globs'));
  },
  async run(args, opts, ctx) {
    const options = readOptionsFrom(opts);
    // Bulk findings (one per bad record) are streamed to --findings-file and held bounded.
    const collector = new FindingCollector({ keepAll: TALLY_CODES, onFinding: ctx.streamFinding });
    const files: FileSummary[] = [];
    // Streamed: inspect keeps per-file summaries only, so any corpus size fits in memory.
    for await (const ev of streamTrajectories(ctx.vfs, args, options)) {
      if (ev.kind === 'finding') await collector.add(ev.finding);
      else if (ev.kind === 'file') {
        files.push(ev.summary);
        if (files.length % 500 === 0) ctx.progress(`inspected ${files.length} files`);
      }
    }
    const findings = collector.findings();
    const tally = tallyOf(files, findings);
    const tokenNote = options.exactTokens ? '' : '~';
    return { findings, data: { files, tally, totals: totalsOf(files), tokens: options.exactTokens ? 'cl100k_base' : 'chars/4' }, text: fileTable(files, tally, tokenNote) };
  },
};
export default inspect;

/** Per-file table of inspect and normalize; columns padded to the longest path (no clipping). */
export function fileTable(files: FileSummary[], tally: Tally, tokenNote: string): string {
  const header = ['file', 'format', 'trajs', 'steps', 'success', `tokens${tokenNote}`, 'rejected'];
  const rows = files.map((f) => [f.file, f.format ?? '?', String(f.trajectories), String(f.steps), describeSuccess(f.success), String(f.tokens), String(f.rejected)]);
  const t = totalsOf(files);
  return [
    ...formatTable([header, ...rows], { align: ['left', 'left', 'right', 'right', 'left', 'right', 'right'] }),
    '',
    `total: ${t.trajectories} trajectories, ${t.steps} steps, ${t.tokens} tokens${tokenNote}; success: ${t.proven} proven, ${t.failed} failed, ${t.unknown} unknown`,
    renderTally('trajectories', tally),
  ].join('\n');
}

/** Options shared by the commands that read trajectories (inspect, normalize). */
export function trajectoryInputOptions(cmd: Command): Command {
  const report = listOption('--report <file>', 'evaluation report / label file saying which instances succeeded');
  return deprecatedAlias(cmd.addOption(report), report, '--reports <file>')
    .option('--format <name>', `skip auto-detection: ${formatNames().join(', ')}`)
    .option('--max-file-mb <n>', 'largest whole-document JSON file (and longest JSONL line) to load; JSONL files are streamed at any size', '64')
    .option('--exact-tokens', 'count tokens with the cl100k_base tokenizer instead of the chars/4 estimate')
    .option('--license <spdx>', 'licence of the data, recorded in source.license')
    .option('--domain <domain>', `set the domain of every trajectory read: ${DOMAINS.join(', ')}`)
    .option('--language <lang>', `set the natural language of every trajectory read instead of detecting it: ${LANGUAGES.join(', ')}`);
}

/** Languages detection can report (see detectLanguage), so an override names one of them. */
export const LANGUAGES = ['en', 'zh', 'ja', 'ko'] as const;

/** Validates `--domain` / `--language`, shared with build. */
export function domainLanguageFrom(opts: Record<string, any>): Pick<ReadTrajectoriesOptions, 'domain' | 'language'> {
  if (opts.domain !== undefined && !DOMAINS.includes(opts.domain)) throw new UsageError(`unknown --domain ${opts.domain}; expected one of ${DOMAINS.join(', ')}`);
  if (opts.language !== undefined && !(LANGUAGES as readonly string[]).includes(opts.language)) throw new UsageError(`unknown --language ${opts.language}; expected one of ${LANGUAGES.join(', ')}`);
  return { domain: opts.domain, language: opts.language };
}

export function readOptionsFrom(opts: Record<string, any>): ReadTrajectoriesOptions {
  const maxMb = Number(opts.maxFileMb ?? 64);
  if (!Number.isFinite(maxMb) || maxMb <= 0) throw new UsageError(`--max-file-mb must be a positive number, got ${opts.maxFileMb}`);
  if (opts.format !== undefined && !formatNames().includes(opts.format)) {
    throw new UsageError(`unknown --format ${opts.format}; expected one of ${formatNames().join(', ')}`);
  }
  return {
    ...domainLanguageFrom(opts),
    reports: opts.report ? [].concat(opts.report) : undefined,
    format: opts.format,
    maxFileBytes: Math.round(maxMb * 1024 * 1024),
    exactTokens: Boolean(opts.exactTokens),
    license: opts.license,
  };
}
