#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Help, type Option } from 'commander';
import { commandRegistry } from './registry.js';
import { UsageError, type CommandContext, type CommandResult } from './command.js';
import { exitCodeFor, ExitCode } from '../core/kernel/exit-codes.js';
import { escapeTerminal, renderFinding } from '../core/kernel/render.js';
import { fsProblem } from '../core/kernel/walk.js';
import { fsFindings } from '../core/kernel/fs-findings.js';
import { nodeVfs } from '../core/kernel/node-vfs.js';
import { spawnProcess } from './process.js';
import { OutputError } from '../core/kernel/output.js';
import { openFindingsFile, prepareFindingsFile } from './findings-file.js';
import { finding } from '../core/kernel/findings.js';
import { kernelFindings } from '../core/catalog.js';
import { packageVersion } from './version.js';
import { examplesHelp } from './examples.js';
import { printFindings, useColor, type Verbosity } from './print-findings.js';
import { startProgress, type ProgressStream } from './progress.js';
import { harnessSpellings, spellingHint } from './aliases.js';


export interface Io {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Colour findings (a terminal without NO_COLOR); off unless set. */
  color?: boolean;
  /** The terminal a progress bar is drawn on (stderr); no bar when absent or not a TTY. */
  progressStream?: ProgressStream;
}

const defaultIo: Io = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  color: useColor(process.stderr),
  progressStream: process.stderr,
};

/** Help that marks required options, so `--help` says what a command cannot run without. */
const helpConfiguration = {
  optionDescription(this: Help, option: Option): string {
    const text = Help.prototype.optionDescription.call(this, option);
    return option.mandatory ? `${text} (required)` : text;
  },
};

/** Runs the CLI and returns the exit code; never calls process.exit itself. */
export async function runCli(givenArgv: string[], io: Io = defaultIo): Promise<number> {
  let argv = givenArgv;
  let exitCode: number = ExitCode.ok;
  const program = new Command('aptpace')
    .description('Will this base model make a good agent? APTBench questions from agent trajectories, lm-evaluation-harness suites, harness-log ingest and PACE prediction.')
    .version(packageVersion(), '-V, --version')
    .option('--json', 'machine-readable output on stdout (findings met in bulk: the first of each code and a count; --findings-file lists every one)')
    .option('-q, --quiet', 'no progress lines; print only error findings')
    .option('-v, --verbose', 'print every finding (by default at most 10 of each code, then a count)')
    .option('--findings-file <file>', 'also write every finding as JSON Lines to this file (never an input; an existing file other than an earlier findings file only with --force)')
    .configureHelp(helpConfiguration)
    .showHelpAfterError('(run with --help for usage and examples)')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  const invoked = argv.find((a) => !a.startsWith('-'));
  for (const entry of commandRegistry) {
    const cmd = program.command(entry.name).description(entry.summary).exitOverride().addHelpText('after', examplesHelp(entry.name));
    // Options must exist before parsing, so the spec is loaded for the invoked command only.
    if (invoked === entry.name) {
      const spec = await entry.load();
      spec.configure(cmd);
      argv = harnessSpellings(argv, new Set([...program.options, ...cmd.options].map((o) => o.long).filter((l): l is string => Boolean(l))));
      cmd.action(async (...actionArgs: unknown[]) => {
        const command = actionArgs[actionArgs.length - 1] as Command;
        const opts = { ...program.opts(), ...command.opts() };
        const ctx: CommandContext = {
          vfs: nodeVfs,
          cwd: process.cwd(),
          json: Boolean(opts.json),
          progress: (m) => {
            // Line by line: a message may span lines, but no line may carry control characters from data.
            if (!opts.json && !opts.quiet) io.stderr(`${m.split('\n').map((line) => escapeTerminal(line, false)).join('\n')}\n`);
          },
          progressBar: (title) => startProgress(title, io.progressStream, !opts.json && !opts.quiet),
          runProcess: spawnProcess,
          invoke: (subArgv, subIo) => runCli(subArgv, { ...subIo, color: io.color }),
          optionsOf: async (name) => {
            const other = commandRegistry.find((c) => c.name === name);
            if (!other) return [];
            const probe = new Command(name);
            (await other.load()).configure(probe);
            return probe.options;
          },
        };
        // Refused before any work: a findings file must not replace an input or a file that is not ours.
        const findingsFile = opts.findingsFile ? await openFindingsFile(nodeVfs, await prepareFindingsFile(nodeVfs, ctx.cwd, opts.findingsFile as string, command.args, opts)) : undefined;
        if (findingsFile) ctx.streamFinding = findingsFile.stream;
        let result: CommandResult;
        try {
          result = await spec.run(command.args, opts, ctx);
        } catch (err) {
          await findingsFile?.abort();
          throw err;
        }
        const verbosity: Verbosity = opts.quiet ? 0 : opts.verbose ? 2 : 1;
        printFindings(result.findings, (line) => io.stderr(`${line}\n`), { verbosity, color: Boolean(io.color) && !ctx.json });
        await findingsFile?.finish(result.findings);
        if (ctx.json) writeJsonResult(io.stdout, entry.name, result);
        else {
          const text = opts.quiet && result.quietText !== undefined ? result.quietText : result.text;
          if (text) io.stdout(escapeTerminal(text.endsWith('\n') ? text : `${text}\n`));
        }
        exitCode = exitCodeFor({ findings: result.findings, thresholdFailed: result.thresholdFailed, strict: result.strict });
      });
    } else {
      cmd.allowUnknownOption().allowExcessArguments();
    }
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return ExitCode.ok;
      const hint = spellingHint(argv);
      if (hint && (err.code === 'commander.unknownOption' || err.code === 'commander.missingMandatoryOptionValue')) io.stderr(`${hint}\n`);
      return exitCodeFor({ usageError: true });
    }
    if (err instanceof UsageError) {
      io.stderr(`usage error: ${escapeTerminal(err.message, false)}\n`);
      return exitCodeFor({ usageError: true });
    }
    if (err instanceof OutputError) {
      // The user named an output that exists (or lies outside the folder): a usage error, found before any work.
      io.stderr(`${renderFinding(finding(kernelFindings, err.code, { file: err.target }, { target: err.target }))}\n`);
      return exitCodeFor({ usageError: true });
    }
    const problem = fileSystemFinding(err);
    if (problem) {
      // An ordinary condition of a named path (missing, unreadable, a folder where a file belongs, a loop).
      io.stderr(`${renderFinding(problem)}\n`);
      return exitCodeFor({ findings: [problem] });
    }
    io.stderr(`aptpace crashed: ${escapeTerminal((err as Error).stack ?? String(err))}\n`);
    return exitCodeFor({ crashed: true });
  }
  return exitCode;
}

/** Write syscalls, so an EACCES says "cannot write" for an output and "cannot read" for an input. */
const WRITE_SYSCALLS = new Set(['open-write', 'write', 'rename', 'mkdir', 'link', 'unlink', 'rmdir', 'rm', 'copyfile', 'symlink', 'mkdtemp', 'chmod']);

function fileSystemFinding(err: unknown) {
  const e = err as NodeJS.ErrnoException & { writing?: boolean };
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return finding(fsFindings, 'input-too-deep', {}, { path: 'an input', limit: 'the supported number of' });
  }
  if (!e || typeof e.code !== 'string' || typeof e.path !== 'string') return undefined;
  return fsProblem(e.path, e, e.writing === true || WRITE_SYSCALLS.has(e.syscall ?? ''));
}

const invokedDirectly = (() => {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();

if (invokedDirectly) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}

/**
 * `--json` output, byte for byte `JSON.stringify({ command, findings, data }, null, 2)`, written
 * a finding at a time so a long list is never one string.
 */
function writeJsonResult(out: (s: string) => void, command: string, result: CommandResult): void {
  const data = JSON.stringify(result.data ?? null, null, 2).replace(/\n/g, '\n  ');
  if (!result.findings.length) {
    out(`{\n  "command": ${JSON.stringify(command)},\n  "findings": [],\n  "data": ${data}\n}\n`);
    return;
  }
  out(`{\n  "command": ${JSON.stringify(command)},\n  "findings": [\n`);
  result.findings.forEach((f, i) => out(`    ${JSON.stringify(f, null, 2).replace(/\n/g, '\n    ')}${i < result.findings.length - 1 ? ',' : ''}\n`));
  out(`  ],\n  "data": ${data}\n}\n`);
}
