import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Option } from 'commander';
import { UsageError, type CommandContext, type CommandSpec } from '../command.js';
import type { Vfs } from '../../core/kernel/vfs.js';
import { writeOutputFile } from '../../core/kernel/output.js';
import { findingFactory } from '../../core/kernel/findings.js';
import { workflowFindings } from '../../core/workflow/findings.js';
import { ConfigError, parseRunConfig, stageArgv, STAGE_ORDER, type FlagInfo, type Stage, type StageConfig } from '../../core/workflow/run-config.js';

const make = findingFactory(workflowFindings);
const STATE_FILE = path.join('.aptpace-run', 'state.json');
/** Files above this size are identified by size and mtime instead of a content hash. */
const HASH_LIMIT = 256 << 20;

export async function flagsOf(stage: Stage, ctx: CommandContext): Promise<FlagInfo[]> {
  const options = await ctx.optionsOf(stage);
  return options.filter((o: Option) => o.long).map((o: Option) => ({
    name: o.long!.replace(/^--/, ''),
    takesValue: o.required || o.optional,
    repeatable: o.variadic || Array.isArray(o.defaultValue) || accumulates(o),
  }));
}

/** A repeatable option's parser appends to the previous value: probe it with two values. */
function accumulates(o: Option): boolean {
  if (!o.parseArg) return false;
  try {
    const once = o.parseArg('a', undefined as unknown as string);
    const twice = o.parseArg('b', once as string);
    return Array.isArray(twice) && twice.length === 2;
  } catch {
    return false;
  }
}

/** Content fingerprint of a file or folder (sorted walk); undefined when the path does not exist. */
async function fingerprint(vfs: Vfs, target: string, seen = new Set<string>()): Promise<string | undefined> {
  const st = await vfs.stat(target);
  if (!st) return undefined;
  const hash = createHash('sha256');
  if (st.isFile) {
    if (st.size > HASH_LIMIT) hash.update(`large:${st.size}:${st.mtimeMs}`);
    else hash.update(await vfs.readBytes(target));
    return hash.digest('hex');
  }
  if (!st.isDirectory || seen.has(target)) return 'other';
  seen.add(target);
  for (const name of (await vfs.list(target))) {
    if (name === '.aptpace-run') continue;
    hash.update(`${name}\0${(await fingerprint(vfs, path.join(target, name), seen)) ?? ''}\n`);
  }
  return hash.digest('hex');
}

/**
 * An input as the command will read it: a path, or (when no such path exists and it holds glob
 * characters) the files the glob matches, each name with its content fingerprint, so a file
 * added, removed or changed behind `data/*.jsonl` makes the stage stale.
 */
async function fingerprintInput(vfs: Vfs, base: string, input: string): Promise<string | undefined> {
  const direct = await fingerprint(vfs, path.resolve(base, input));
  if (direct !== undefined || !/[*?[\]{}]/.test(input)) return direct;
  const hash = createHash('sha256').update('glob\n');
  for (const file of await vfs.glob([input], { cwd: base, absolute: true })) hash.update(`${path.relative(base, file)}\0${(await fingerprint(vfs, file)) ?? ''}\n`);
  return hash.digest('hex');
}

interface StageState {
  /** Hash of the argv and input contents of the last successful run ('' after a failed run). */
  inputs: string;
  outputs: string;
  /** The `--out` this stage wrote, as configured: run may replace it without `force`. */
  out?: string;
}

const run: CommandSpec = {
  name: 'run',
  summary: 'Run the pipeline stages configured in aptpace.yaml in order, skipping stages whose inputs and outputs are unchanged',
  configure(cmd) {
    cmd
      .argument('[stages...]', `stages to run (default: every configured stage), in pipeline order: ${STAGE_ORDER.join(', ')}`)
      .requiredOption('--config <file>', 'aptpace.yaml: one section per stage mirroring that command\'s flags (see docs/workflow.md)')
      .option('--set <stage.flag=value>', 'override one config value (repeatable)', (v: string, prev: string[] = []) => [...prev, v], [] as string[])
      .option('--rerun', 'run every selected stage even when it is up to date')
      .option('--dry-run', 'print the commands and whether each stage is up to date, run nothing');
  },
  async run(args, opts, ctx) {
    const configPath = path.resolve(ctx.cwd, opts.config as string);
    const st = await ctx.vfs.stat(configPath);
    if (!st) throw new UsageError(`--config ${opts.config}: no such file`);
    if (!st.isFile) throw new UsageError(`--config ${opts.config}: is a directory, not a config file`);
    for (const s of args) if (!(STAGE_ORDER as readonly string[]).includes(s)) throw new UsageError(`unknown stage "${s}"; stages: ${STAGE_ORDER.join(', ')}`);
    const flagsByStage = new Map<Stage, FlagInfo[]>();
    for (const stage of STAGE_ORDER) flagsByStage.set(stage, await flagsOf(stage, ctx));
    let stages: StageConfig[];
    try {
      stages = parseRunConfig(await ctx.vfs.readText(configPath), opts.config as string, flagsByStage, opts.set as string[]);
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message);
      throw err;
    }
    const selected = args.length ? stages.filter((s) => args.includes(s.stage)) : stages;
    for (const s of args) if (!stages.some((c) => c.stage === s)) throw new UsageError(`stage "${s}" is not configured in ${opts.config}`);
    // Paths in the config are relative to the config file's folder, like lm-eval's own config.
    const base = path.dirname(configPath);
    const statePath = path.join(base, STATE_FILE);
    let state: Record<string, StageState> = {};
    try {
      state = JSON.parse(await ctx.vfs.readText(statePath));
    } catch {
      state = {};
    }
    const report: Array<{ stage: string; command: string; status: 'ran' | 'up-to-date' | 'planned'; exitCode?: number }> = [];
    for (const stage of selected) {
      const argv = stageArgv(stage);
      const out = stage.flags.find((f) => f.name === 'out')?.value;
      const inputPaths = [...stage.inputs, ...stage.flags.filter((f) => f.name !== 'out' && typeof f.value === 'string').map((f) => f.value as string)];
      const inputHash = createHash('sha256').update(JSON.stringify(argv));
      for (const p of inputPaths) inputHash.update(`${p}\0${(await fingerprintInput(ctx.vfs, base, p)) ?? ''}\n`);
      const inputs = inputHash.digest('hex');
      const outputs = typeof out === 'string' ? await fingerprint(ctx.vfs, path.resolve(base, out)) : undefined;
      const prior = state[stage.stage];
      const upToDate = !opts.rerun && prior !== undefined && prior.inputs === inputs && outputs !== undefined && prior.outputs === outputs;
      const command = `aptpace ${argv.join(' ')}`;
      if (opts.dryRun || upToDate) {
        report.push({ stage: stage.stage, command, status: opts.dryRun && !upToDate ? 'planned' : 'up-to-date' });
        ctx.progress(`${stage.stage}: ${upToDate ? 'up to date, skipped' : `would run: ${command}`}`);
        continue;
      }
      // The stage's own earlier output is replaced without `force: true`; anything else at
      // --out (a file run never wrote there) is refused by the command itself (output-exists).
      const owned = typeof out === 'string' && outputs !== undefined && prior?.out === out && !stage.flags.some((f) => f.name === 'force');
      const canForce = (flagsByStage.get(stage.stage) ?? []).some((f) => f.name === 'force');
      const invoked = owned && canForce ? [...argv, '--force'] : argv;
      ctx.progress(`${stage.stage}: ${command}${invoked !== argv ? ' (replacing its own earlier output)' : ''}`);
      const cwd = process.cwd();
      process.chdir(base);
      let code: number;
      try {
        code = await ctx.invoke([...(ctx.json || opts.quiet ? ['--quiet'] : []), ...invoked], { stdout: (s) => (ctx.json ? undefined : process.stdout.write(s)), stderr: (s) => process.stderr.write(s) });
      } finally {
        process.chdir(cwd);
      }
      report.push({ stage: stage.stage, command, status: 'ran', exitCode: code });
      const after = typeof out === 'string' ? await fingerprint(ctx.vfs, path.resolve(base, out)) : undefined;
      if (code !== 0) {
        // Not up to date, but what it wrote is still its own to replace on the next run.
        if (after !== undefined && (outputs === undefined || owned)) state[stage.stage] = { inputs: '', outputs: after, out: out as string };
        else delete state[stage.stage];
        break;
      }
      if (after !== undefined) state[stage.stage] = { inputs, outputs: after, ...(typeof out === 'string' ? { out } : {}) };
    }
    if (!opts.dryRun) await writeOutputFile(ctx.vfs, statePath, `${JSON.stringify(state, null, 2)}\n`, true);
    const text = report.map((r) => `${r.stage.padEnd(9)} ${r.status}${r.exitCode ? ` (exit ${r.exitCode})` : ''}`).join('\n');
    const failed = report.find((r) => r.exitCode);
    const findings = failed ? [make('run-stage-failed', { file: opts.config as string, field: failed.stage }, { stage: failed.stage, exitCode: failed.exitCode })] : [];
    return { findings, data: { stages: report }, text };
  },
};

export default run;
