import * as path from 'node:path';
import type { CommandSpec } from '../command.js';
import type { Finding } from '../../core/kernel/findings.js';
import { listPath, type Listing } from '../../core/workflow/listing.js';
import { formatTable } from '../table.js';

function render(l: Listing): string[] {
  switch (l.kind) {
    case 'suite':
      return [`suite ${l.suite} (${l.path}): ${l.tasks.length} task(s), ${l.tasks.reduce((n, t) => n + t.documents, 0)} test documents`, ...formatTable([['task', 'documents'], ...l.tasks.map((t) => [t.task, String(t.documents)])], { indent: '  ', align: ['left', 'right'] })];
    case 'store':
      return [
        `score store ${l.path}: ${l.models.length} model(s) × ${l.instances} instance(s)`,
        ...formatTable([['task', 'instances'], ...l.tasks.map((t) => [t.task, String(t.instances)])], { indent: '  ', align: ['left', 'right'] }),
        `  targets: ${l.targets.length ? l.targets.map((t) => `${t.target} (${t.models} models)`).join(', ') : 'none'}`,
        `  models: ${l.models.join(', ')}`,
      ];
    case 'model-file':
      return [`PACE model file ${l.path}: ${l.targets.length} target(s) [${l.targets.map((t) => `${t} (${l.scales[t]})`).join(', ')}], ${l.proxy} proxy instance(s), fitted on ${l.poolModels} model(s)`, ...formatTable([['task', 'selectable instances'], ...l.tasks.map((t) => [t.task, String(t.instances)])], { indent: '  ', align: ['left', 'right'] })];
    case 'reference':
      return [`reference file ${l.path}: ${l.references.length} reference(s), ${l.checkpoints.length} checkpoint(s), targets [${l.targets.join(', ')}]`, `  references: ${l.references.join(', ')}`, ...(l.checkpoints.length ? [`  checkpoints: ${l.checkpoints.join(', ')}`] : [])];
    case 'config':
      return [`aptpace.yaml ${l.path}: stages ${l.stages.join(', ')}`];
  }
}

const ls: CommandSpec = {
  name: 'ls',
  summary: 'List what a path holds: the tasks of a suite (or a folder of suites), the models, tasks and targets of a score store or model file, a config file\'s stages',
  configure(cmd) {
    cmd.argument('<paths...>', 'suite folders, folders of suites, score stores, model.json files, reference.yaml or aptpace.yaml');
  },
  async run(args, _opts, ctx) {
    const findings: Finding[] = [];
    const listings: Listing[] = [];
    for (const p of args) {
      const r = await listPath(ctx.vfs, path.resolve(ctx.cwd, p), p);
      listings.push(...r.listings);
      findings.push(...r.findings);
    }
    return { findings, data: { listings }, text: listings.flatMap(render).join('\n') };
  },
};

export default ls;
