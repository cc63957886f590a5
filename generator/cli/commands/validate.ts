import * as path from 'node:path';
import type { CommandSpec } from '../command.js';
import { findingFactory, type Finding } from '../../core/kernel/findings.js';
import { workflowFindings } from '../../core/workflow/findings.js';
import { configKind, validateSuite } from '../../core/workflow/listing.js';
import { parseReferenceFile } from '../../core/workflow/reference.js';
import { ConfigError, parseRunConfig, STAGE_ORDER, type FlagInfo, type Stage } from '../../core/workflow/run-config.js';
import { flagsOf } from './run.js';

const make = findingFactory(workflowFindings);

const validate: CommandSpec = {
  name: 'validate',
  summary: 'Check an emitted suite against its manifest (every file as emitted, every task readable) or a config file (aptpace.yaml, reference.yaml) without running anything',
  configure(cmd) {
    cmd.argument('<paths...>', 'suite folders, aptpace.yaml or reference.yaml files');
  },
  async run(args, _opts, ctx) {
    const findings: Finding[] = [];
    const checked: Array<{ path: string; kind: string; errors: number }> = [];
    let flagsByStage: Map<Stage, FlagInfo[]> | undefined;
    for (const p of args) {
      const abs = path.resolve(ctx.cwd, p);
      const before = findings.length;
      const st = await ctx.vfs.stat(abs);
      let kind = 'unknown';
      if (st?.isDirectory) {
        kind = 'suite';
        findings.push(...(await validateSuite(ctx.vfs, abs, p)));
      } else if (st?.isFile) {
        const text = await ctx.vfs.readText(abs);
        kind = (await configKind(text)) ?? 'unknown';
        if (kind === 'reference') findings.push(...parseReferenceFile(text, p).findings);
        else if (kind === 'config') {
          if (!flagsByStage) {
            flagsByStage = new Map();
            for (const stage of STAGE_ORDER) flagsByStage.set(stage, await flagsOf(stage, ctx));
          }
          try {
            parseRunConfig(text, p, flagsByStage);
          } catch (err) {
            if (!(err instanceof ConfigError)) throw err;
            findings.push(make('validate-config', { file: p, ...(err.line ? { line: err.line } : {}) }, { problem: err.message.replace(/^[^:]*(:\d+)?: /, '') }));
          }
        } else findings.push(make('validate-config', { file: p }, { problem: 'not an aptpace.yaml (format: aptpace-config/1) or reference file (references:)' }));
      } else findings.push(make('validate-config', { file: p }, { problem: 'no such file or folder' }));
      const errors = findings.slice(before).filter((f) => f.severity === 'error').length;
      checked.push({ path: p, kind, errors });
    }
    return { findings, data: { checked }, text: checked.map((c) => `${c.path}: ${c.kind}, ${c.errors ? `${c.errors} error(s)` : 'valid'}`).join('\n') };
  },
};

export default validate;
