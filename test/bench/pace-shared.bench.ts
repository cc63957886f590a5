/**
 * Full nested leave-one-model-out on the real shared PACE data (../shared/data): PACE's 13-model
 * pool × OpenHands Index targets, B = 300, seed 42, PACE's frozen C=100 settings, the default
 * nested grid, the mean baseline, no budget curve. Prints the wall time and the nested-search
 * MAE per target. Skips (prints a line) when the shared data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadPaceInputs } from '../../generator/core/pace/inputs/inputs.js';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { runLoocv } from '../../generator/core/pace/evaluation/loocv.js';
import { parseConfigs, defaultGrid } from '../../generator/core/pace/settings/config.js';
import { peakRssMiB, repoRoot, report, timed } from './measure.js';

const sharedData = path.resolve(repoRoot, '..', 'shared', 'data');
if (!existsSync(sharedData)) console.log('BENCH pace-shared: skipped (../shared/data absent)');
else {
  const inputs = await loadPaceInputs(nodeVfs, {
    sources: [path.join(sharedData, 'pace', 'results', 'standardized_results')],
    targets: [path.join(sharedData, 'openhands-index', 'results')],
    mapping: path.join(repoRoot, 'fixtures', 'logs', 'openhands-to-pace-mapping.json'),
    duplicates: 'first',
  });
  const { configs } = parseConfigs(readFileSync(path.join(repoRoot, 'fixtures', 'pace', 'pace-frozen-c100.json'), 'utf8'));
  const options = { bootstrap: 300, alpha: 0.1, seed: '42', svdScope: 'fold' as const };
  const prepared = prepareData(inputs.matrix!, inputs.targets, { bootstrap: options.bootstrap, seed: options.seed });
  const run = await timed(() => runLoocv(prepared.data!, { ...options, frozen: configs!, nested: defaultGrid, baselines: ['mean'], budgetCurve: [] }));
  const maes = run.result.targets.map((t) => `${t.target}:${(100 * t.methods.find((m) => m.method === 'pace-nested')!.metrics.mae).toFixed(4)}`);
  report('pace-shared nested LOOCV', { loocv_s: run.seconds, folds: run.result.targets.reduce((s, t) => s + t.models.length, 0), peak_rss_MiB: peakRssMiB(), nested_mae_pp: maes.join(',') });
}
