import * as path from 'node:path';
import type { Command } from 'commander';
import type { ProgressCallback } from '../../core/kernel/progress.js';
import { withProgress } from '../progress.js';
import { UsageError, type CommandSpec } from '../command.js';
import { FindingCollector } from '../../core/kernel/finding-collector.js';
import { writeOutputLines } from '../../core/kernel/output.js';
import { refuseInputAsOutput } from '../../core/kernel/confine.js';
import { trajectoryJson } from '../../core/trajectories/canonical-json.js';
import { streamTrajectories, tallyOf, TALLY_CODES, type FileSummary } from '../../core/trajectories/read.js';
import { totalsOf } from '../../core/trajectories/summary.js';
import { isProvenSuccess } from '../../core/trajectories/types.js';
import { fileTable, readOptionsFrom, trajectoryInputOptions } from './inspect.js';

const normalize: CommandSpec = {
  name: 'normalize',
  summary: 'Convert trajectories of any supported format to canonical JSONL (schema traj/1)',
  configure(cmd: Command) {
    trajectoryInputOptions(cmd.argument('<inputs...>', 'trajectory files, directories (walked recursively) or globs'))
      .requiredOption('--out <file>', 'canonical JSONL to write')
      .option('--only-proven', 'keep only trajectories whose success rests on evidence')
      .option('--force', 'overwrite --out if it exists');
  },
  async run(args, opts, ctx) {
    const out = path.resolve(ctx.cwd, String(opts.out));
    // Rerunning into a folder that is also an input must not read the previous output back in.
    const options = { ...readOptionsFrom(opts), exclude: [out] };
    if (!/\.jsonl$/i.test(out)) throw new UsageError(`--out must name a .jsonl file, got ${opts.out}`);
    // Even with --force, --out never replaces an input: it would be excluded from the read and emptied.
    await refuseInputAsOutput(ctx.vfs, out, args.map((a) => path.resolve(ctx.cwd, a)));
    // Bulk findings (one per bad record) are streamed to --findings-file and held bounded.
    const collector = new FindingCollector({ keepAll: TALLY_CODES, onFinding: ctx.streamFinding });
    const files: FileSummary[] = [];
    let written = 0;
    let dropped = 0;
    async function* lines(onProgress: ProgressCallback): AsyncGenerator<string> {
      for await (const ev of streamTrajectories(ctx.vfs, args, options)) {
        if (ev.kind === 'finding') await collector.add(ev.finding);
        else if (ev.kind === 'file') {
          files.push(ev.summary);
          if (files.length % 500 === 0) ctx.progress(`normalized ${files.length} files, ${written} trajectories`);
        } else if (opts.onlyProven && !isProvenSuccess(ev.trajectory)) dropped++;
        else {
          written++;
          onProgress(written, undefined, 'trajectories normalized');
          // Sorted keys (same bytes as stableStringify, built faster): the same input gives byte-identical output.
          yield trajectoryJson(ev.trajectory);
        }
      }
    }
    // Atomic and streamed: an existing --out is refused (before any input is read) unless --force.
    await withProgress(ctx, 'normalize', (onProgress) => writeOutputLines(ctx.vfs, out, lines(onProgress), { force: Boolean(opts.force) }));
    const findings = collector.findings();
    const tally = tallyOf(files, findings);
    ctx.progress(`wrote ${written} trajectories to ${opts.out}${dropped ? ` (${dropped} without proven success left out)` : ''}`);
    return {
      findings,
      data: { out: String(opts.out), written, dropped, files, tally, totals: totalsOf(files) },
      text: `${fileTable(files, tally, options.exactTokens ? '' : '~')}\nwrote ${written} trajectories to ${opts.out}${dropped ? `; ${dropped} without proven success left out (--only-proven)` : ''}`,
    };
  },
};
export default normalize;
