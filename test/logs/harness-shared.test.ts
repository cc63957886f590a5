import { describe, expect, it } from 'vitest';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { ingestLogs } from '../../generator/core/logs/index.js';
import { hasPython, hasSharedData, inCi, shared } from '../helpers/env.js';
import { cellsOf, codes, countCode, PYTHON_REFERENCE, runPython } from './helpers.js';

const logs = (...p: string[]) => shared('harness-logs', ...p);
const CHOICE = { demo_mc: ['acc', 'none'], demo_mc_mi: ['acc_mutual_info', 'none'], demo_gen: ['exact_match', 'strict'], demo_ll: ['my_ll', 'none'] };

describe.skipIf(!hasSharedData)('ingestLogs on the shared real harness output (0.4.13.dev0, 0.4.11, v0.4.7 results)', () => {
  for (const version of ['output_0.4.13.dev0', 'output_0.4.11']) {
    it(`${version}: four per-instance tasks, the rolling task has no per-instance score, task_hashes verified`, async () => {
      const r = await ingestLogs(nodeVfs, [logs(version)]);
      expect(r.coverage.tasks).toEqual(['demo_gen', 'demo_ll', 'demo_mc', 'demo_mc_mi']);
      expect(r.matrix.models.map((m) => m.name)).toEqual(['dummy-model']);
      // Every recomputed task hash (incl. the two-filter generation task) equals the harness's own.
      expect(codes(r.findings)).not.toContain('task-hash-mismatch');
      expect(codes(r.findings)).not.toContain('aggregate-mismatch');
      expect(r.findings.find((f) => f.code === 'metric-no-default')!.args.task).toBe('demo_roll');
      expect(r.findings.find((f) => f.code === 'metric-choice-guessed')!.args).toMatchObject({ task: 'demo_ll', metric: 'my_ll' });
      expect(r.tally.rejected).toBe(0);
    });

    it.skipIf(!hasPython && !inCi)(`${version}: every cell equals an independent json.loads reading`, async () => {
      const r = await ingestLogs(nodeVfs, [logs(version)]);
      expect(cellsOf(r.matrix)).toEqual(runPython(PYTHON_REFERENCE, [logs(version), JSON.stringify(CHOICE)]));
    });
  }

  it('both versions together: one model, the newer (0.4.11, later clock) run wins every task', async () => {
    const r = await ingestLogs(nodeVfs, [logs('output_0.4.13.dev0'), logs('output_0.4.11')]);
    // All five sample files of the older run, including the rolling task that has no per-instance score.
    expect(r.superseded).toHaveLength(5);
    expect(new Set(r.superseded.map((s) => s.kept.ts))).toEqual(new Set(['2026-11-29T07-45-14.226275']));
    expect((r.matrix.provenance.runs as Array<{ harness: string }>).map((x) => x.harness)).toEqual(['0.4.11']);
    const pinned = await ingestLogs(nodeVfs, [logs('output_0.4.13.dev0'), logs('output_0.4.11')], { pins: { 'dummy-model': '2026-11-29T07-35-47.477820' } });
    expect((pinned.matrix.provenance.runs as Array<{ harness: string }>).map((x) => x.harness)).toEqual(['0.4.13.dev0']);
  });

  it('.json output path + --predict_only: run found via res_<ts>.json, skipped with a finding (bypass is not a score)', async () => {
    const r = await ingestLogs(nodeVfs, [logs('output_0.4.13.dev0_jsonpath_predict_only')]);
    expect(r.findings.find((f) => f.code === 'run-predict-only')!.args).toMatchObject({ model: 'org/my-model:v1', tasks: 'demo_gen' });
    expect(r.matrix.instances).toHaveLength(0);
    // Even when the user names the metric, a predict-only run has no scores to read.
    const forced = await ingestLogs(nodeVfs, [logs('output_0.4.13.dev0_jsonpath_predict_only')], { metrics: [{ task: 'demo_gen', metric: 'bypass' }] });
    expect(codes(forced.findings)).toContain('run-predict-only');
    expect(forced.matrix.instances).toHaveLength(0);
  });

  it('a predict-only run beside scored runs of the same task never drags them down', async () => {
    const r = await ingestLogs(nodeVfs, [logs('output_0.4.13.dev0'), logs('output_0.4.13.dev0_jsonpath_predict_only')]);
    expect(codes(r.findings)).toContain('run-predict-only');
    expect(codes(r.findings)).not.toContain('metric-not-found');
    expect(r.matrix.models.map((m) => m.name)).toEqual(['dummy-model']);
    expect(r.coverage.tasks).toContain('demo_gen');
    expect(r.coverage.cells['dummy-model']!.demo_gen!.observed).toBeGreaterThan(0);
  });

  it('--samples run under a random model folder: doc_ids taken as written', async () => {
    const r = await ingestLogs(nodeVfs, [logs('output_0.4.13.dev0_samples_4_1')]);
    expect(r.matrix.models.map((m) => m.name)).toEqual(['qdpv68r5']);
    expect(r.matrix.instances.map((i) => i.key)).toEqual(['demo_gen/1', 'demo_gen/4']);
  });

  it('real v0.4.7 results without samples: three runs found, model names from model_name, nothing per-instance', async () => {
    const r = await ingestLogs(nodeVfs, [logs('real-v0.4.7-results')]);
    const runs = r.findings.filter((f) => f.code === 'run-without-samples');
    expect(runs.map((f) => f.args.model)).toEqual([
      'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
      'deepseek-ai/DeepSeek-R1-Distill-Llama-8B',
      'meta-llama/Llama-3.1-8B-Instruct',
    ]);
    expect(runs.every((f) => f.args.tasks === 40)).toBe(true);
    expect(r.matrix.instances).toHaveLength(0);
  });
});
