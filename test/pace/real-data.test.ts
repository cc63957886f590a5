/**
 * PACE's published source scores (../shared/data/pace) joined with the OpenHands Index targets
 * (../shared/data/openhands-index) through the logs readers and the committed name mapping.
 * Skips cleanly when the shared data is absent.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { hasSharedData, shared, fixtures } from '../helpers/env.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadPaceInputs, type PaceInputs } from '../../generator/core/pace/inputs/inputs.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import { parseConfigs } from '../../generator/core/pace/settings/config.js';
import { readFileSync } from 'node:fs';

let inputs: PaceInputs;

describe.skipIf(!hasSharedData)('real data: PACE sources × OpenHands Index targets', () => {
  beforeAll(async () => {
    inputs = await loadPaceInputs(nodeVfs, {
      sources: [shared('pace', 'results', 'standardized_results')],
      targets: [shared('openhands-index', 'results')],
      mapping: fixtures('logs', 'openhands-to-pace-mapping.json'),
      duplicates: 'first',
    });
  }, 60_000);

  it('joins 13 of PACE’s 14 pool models with their targets (Kimi-K2 has no OpenHands run; GLM-5 and Qwen3 coverage handled)', () => {
    const { data, findings } = prepareData(inputs.matrix!, inputs.targets, { bootstrap: 0, seed: '1' });
    expect(data!.models).toEqual([
      'Claude-4.5-Opus', 'Claude-4.5-Sonnet', 'Claude-4.6-Opus', 'DeepSeek-V3.2', 'GLM-4.7', 'GPT-5.2', 'GPT-5.2-Codex',
      'Gemini-3-Flash-Preview', 'Gemini-3-Pro-Preview', 'Kimi-K2.5', 'MiniMax-M2.1', 'MiniMax-M2.5', 'Qwen3-Coder-480B-A35B-Instruct',
    ]);
    expect(findings.find((f) => f.code === 'pace-model-low-coverage')!.args.model).toBe('GLM-5');
    expect(findings.filter((f) => f.code === 'pace-target-model-not-in-sources').map((f) => f.args.model)).toContain('Nemotron-3-Nano');
    // gpqa's first duplicated id block (kept by --duplicates first) and bfcl's failed-only files.
    expect(findings.filter((f) => f.code === 'pace-task-mostly-zero').map((f) => f.args.task)).toEqual(['bfcl/non_live_simple_python', 'gpqa/diamond']);
    // Every alias of the mapping names an OpenHands folder or a PACE file: none is reported unused.
    expect(inputs.findings.filter((f) => f.code === 'mapping-unused')).toEqual([]);
    expect(data!.targets.map((t) => [t.name, t.rows.length])).toEqual([
      ['commit0', 13], ['gaia', 13], ['swe-bench', 13], ['swe-bench-multimodal', 13], ['swt-bench', 13],
    ]);
  });

  it('the mean-predictor LOO MAE equals the values computed independently in the reference notes', async () => {
    const { data } = prepareData(inputs.matrix!, inputs.targets, { bootstrap: 0, seed: '1' });
    const report = await runLoocv(data!, { bootstrap: 0, alpha: 0.1, seed: '1', svdScope: 'fold', frozen: {}, nested: null, baselines: ['mean'], budgetCurve: [], coverage: false });
    const mae = Object.fromEntries(report.targets.map((t) => [t.target, +(100 * t.methods.find((m) => m.method === 'mean')!.metrics.mae).toFixed(2)]));
    // pace-and-peers.md, caveat 4 (ohi_mean_baseline.py on openhands-index-results@3015ac61).
    expect(mae).toEqual({ gaia: 12.67, 'swe-bench': 3.15, 'swt-bench': 9.99, 'swe-bench-multimodal': 7.43, commit0: 14.26 });
  }, 60_000);

  it('fits PACE’s frozen C=100 settings: 100 instances per target, a samples file and a skill map', async () => {
    const { configs } = parseConfigs(readFileSync(fixtures('pace', 'pace-frozen-c100.json'), 'utf8'));
    const { model, findings } = await fitPace(inputs.matrix!, inputs.targets, { bootstrap: 30, alpha: 0.1, seed: '42', svdScope: 'fold', configs, targets: ['swe-bench', 'gaia'] });
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    for (const t of model!.targets) {
      expect(t.linear.weights).toHaveLength(100);
      expect(t.skillMap.reduce((s, x) => s + x.instanceShare, 0)).toBeCloseTo(1, 12);
      expect(t.trainingModels).toHaveLength(13);
    }
    expect(model!.proxy.length).toBeGreaterThanOrEqual(100);
    expect(model!.proxy.length).toBeLessThanOrEqual(200);
  }, 60_000);
});
