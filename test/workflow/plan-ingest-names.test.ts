import { cpSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { fixtures, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * plan → run → ingest keeps the reference file's names: the harness names a run after
 * `pretrained=` (`model-a`, the same for two references of one repository), the plan's
 * model-names.csv maps each job's folder back to the reference name, and targets.csv joins.
 */
describe('plan and ingest agree on model names', () => {
  it('stores runs under the reference names that targets.csv uses', async () => {
    const dir = tempDir('aptpace-plan-names-');
    const harness = { 'ref-a': 'model-a', 'ref-b': 'model-b', 'ref-c': 'org__model-c__v1', 'ref-d': 'model-a' };
    const pretrained = { 'ref-a': 'model-a', 'ref-b': 'model-b', 'ref-c': 'org/model-c:v1', 'ref-d': 'model-a' };
    writeFileSync(
      path.join(dir, 'reference.yaml'),
      `format: aptpace-reference/1\nsuite: {path: ${JSON.stringify(path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures'))}}\nreferences:\n${Object.entries(pretrained)
        .map(([name, p], i) => `  - {name: ${name}, model: hf, model_args: "pretrained=${p},dtype=bfloat16", scores: {swe-bench: 0.${i + 1}}}`)
        .join('\n')}\n`,
    );
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const planned = await cli('plan', '--reference', 'reference.yaml', '--out', 'plans', '--quiet');
      expect(planned.code, planned.stderr).toBe(0);
      // What the harness leaves: <output_path>/<sanitized pretrained>/results_*.json + samples.
      for (const [name, folder] of Object.entries(harness)) cpSync(fixtures('logs', 'harness-output', 'out', folder), path.join('runs', name, folder), { recursive: true });
      const unmapped = await cli('ingest', 'runs', '--targets', 'plans/targets.csv', '--out', 'store-unmapped', '--json');
      if (!unmapped.json) throw new Error(unmapped.stdout + unmapped.stderr);
      expect(unmapped.json.findings.map((f: any) => f.code)).toContain('targets-model-not-in-store');
      const mapped = await cli('ingest', 'runs', '--targets', 'plans/targets.csv', '--mapping', 'plans/model-names.csv', '--out', 'store', '--json');
      expect(mapped.json.findings.map((f: any) => f.code)).not.toContain('targets-model-not-in-store');
      expect(mapped.json.data.models).toEqual(['ref-a', 'ref-b', 'ref-c', 'ref-d']);
      expect(mapped.json.data.targets).toEqual([{ target: 'swe-bench', scale: 'fraction', models: 4, perInstanceModels: 0 }]);
    } finally {
      process.chdir(cwd);
    }
  });
});
