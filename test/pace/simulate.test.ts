/** `aptpace simulate`: a population with known truth, written as a store that evaluate reads. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { nodeVfs } from '../../generator/core/kernel/node-vfs.js';
import { loadStore } from '../../generator/core/logs/store.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';

const dir = tempDir('aptpace-simulate-');
const common = ['--instances', '300', '--tasks', '5', '--dims', '2', '--targets', '1', '--target-instances', '60', '--seed', 'sim'];

describe('aptpace simulate', () => {
  it('writes families, missing (model, task) blocks and the truth into a store, the same bytes on a rerun', async () => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    for (const out of [a, b]) {
      const res = await cli('simulate', '--models', '30', ...common, '--families', '3', '--family-spread', '5', '--missing', '0.2', '--nonlinear', '--out', out);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('30 × 300');
    }
    for (const f of ['store.json', 'values.f64', 'observed.u8']) expect(readFileSync(path.join(a, f))).toEqual(readFileSync(path.join(b, f)));
    const store = await loadStore(nodeVfs, a);
    const { matrix } = store;
    const S = matrix.instances.length;
    const families = (matrix.provenance as { families: Record<string, number> }).families;
    expect(new Set(Object.values(families))).toEqual(new Set([0, 1, 2]));
    // Missing cells come as whole (model, task) blocks, about a fifth of them.
    let blocks = 0;
    let missingBlocks = 0;
    for (let m = 0; m < matrix.models.length; m++) {
      for (const task of new Set(matrix.instances.map((i) => i.task))) {
        const cols = matrix.instances.flatMap((inst, c) => (inst.task === task ? [c] : []));
        const seen = cols.map((c) => matrix.observed[m * S + c]);
        expect(new Set(seen).size, `${m} ${task}`).toBe(1);
        blocks++;
        if (seen[0] === 0) missingBlocks++;
      }
    }
    expect(missingBlocks / blocks).toBeGreaterThan(0.1);
    expect(missingBlocks / blocks).toBeLessThan(0.3);
    // Families sit apart: their mean source accuracies differ more than the same three groups
    // of models do in a population of one family (same seed, same within-family draws).
    const spreadOf = (m: typeof matrix, groupOf: (row: number) => number) => {
      const means = [0, 1, 2].map((g) => {
        let sum = 0;
        let n = 0;
        m.models.forEach((_, row) => {
          if (groupOf(row) !== g) return;
          for (let c = 0; c < S; c++) if (m.observed[row * S + c]) (sum += m.values[row * S + c]!), n++;
        });
        return sum / n;
      });
      return Math.max(...means) - Math.min(...means);
    };
    const single = syntheticPace({ models: 30, instances: 300, tasks: 5, dims: 2, targets: 1, targetInstances: 60, seed: 'sim' }).matrix;
    expect(spreadOf(matrix, (row) => families[matrix.models[row]!.name]!)).toBeGreaterThan(2 * spreadOf(single, (row) => row % 3));
    // The truth rides along: each model's expected target score, in percent, near its observed score.
    const target = store.targets[0]!;
    const expected = (target.provenance as { expected: Record<string, number> }).expected;
    expect(Object.keys(expected).sort()).toEqual(matrix.models.map((m) => m.name).sort());
    for (const [model, value] of Object.entries(expected)) {
      expect(value).toBeGreaterThan(0);
      expect(value).toBeLessThan(100);
      expect(Math.abs(value - target.scores[model]!)).toBeLessThan(30);
    }
  });

  it('two-skill targets are not a function of one ability direction; without the options the population is the one-skill kind', () => {
    const spec = { models: 200, instances: 50, dims: 2, targets: 1, targetInstances: 10, seed: 'two-skill' };
    const oneSkill = syntheticPace(spec);
    const twoSkill = syntheticPace({ ...spec, nonlinearTargets: true });
    // The sources are the same draw; only the target differs.
    expect(twoSkill.matrix.values).toEqual(oneSkill.matrix.values);
    // Under one skill, a model's expected score is monotone in one direction of (θ1, θ2): some
    // direction orders the models exactly. Under two skills no direction does.
    const bestOrder = (s: typeof oneSkill) => {
      const e = s.expected['agentic-0']!;
      let best = 0;
      for (let k = 0; k <= 180; k++) {
        const angle = (k * Math.PI) / 180;
        const proj = Array.from({ length: spec.models }, (_, m) => Math.cos(angle) * s.theta[2 * m]! + Math.sin(angle) * s.theta[2 * m + 1]!);
        let concordant = 0;
        let pairs = 0;
        for (let i = 0; i < spec.models; i++) {
          for (let j = i + 1; j < spec.models; j++) {
            pairs++;
            if (Math.sign(proj[i]! - proj[j]!) === Math.sign(e[i]! - e[j]!)) concordant++;
          }
        }
        best = Math.max(best, concordant / pairs);
      }
      return best;
    };
    expect(bestOrder(oneSkill)).toBeGreaterThan(0.99);
    expect(bestOrder(twoSkill)).toBeLessThan(0.97);
  });

  it('evaluate reads the simulated store and reports the shipped row beside the other candidates', async () => {
    const store = path.join(dir, 'small');
    expect((await cli('simulate', '--models', '12', ...common, '--families', '2', '--out', store)).code).toBe(0);
    const res = await cli('evaluate', '--store', store, '--no-nested', '--budgets', '', '--bootstrap', '30', '--budget', '40', '--nc-h', '2', '--nc-d', '2', '--baselines', 'mean,ridge-all', '--json');
    expect(res.code, res.stderr).toBe(0);
    const methods = res.json.data.targets[0].methods.map((m: { method: string }) => m.method);
    expect(methods).toEqual(expect.arrayContaining(['shipped', 'pace-frozen', 'mean', 'ridge-all']));
  });

  it('a pool whose gaps leave no instance complete loses the models that block most, until half are complete', async () => {
    const { prepareData, DEFAULT_MIN_COMPLETE_SHARE: MIN_COMPLETE_SHARE, MAX_DROPPED_SHARE } = await import('../../generator/core/pace/inputs/prepare.js');
    const gappy = syntheticPace({ models: 50, instances: 600, tasks: 6, dims: 2, targets: 1, targetInstances: 40, seed: 'gaps', missingShare: 0.05 });
    const prepared = prepareData(gappy.matrix, gappy.targets, { bootstrap: 0, seed: '1' });
    const dropped = prepared.findings.filter((f) => f.code === 'pace-model-dropped-incomplete');
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.length).toBeLessThanOrEqual(MAX_DROPPED_SHARE * 50);
    expect(prepared.data!.models).toHaveLength(50 - dropped.length);
    for (const f of dropped) expect(prepared.data!.models).not.toContain(f.args.model);
    // Half the instances are now observed for every pool model, and those are the selectable ones.
    expect(prepared.data!.instances.length).toBeGreaterThanOrEqual(MIN_COMPLETE_SHARE * 600 * 0.9);
    // Dropping one model fewer would not have reached half: the last one was needed.
    expect(dropped.at(-1)!.args.complete).toBeGreaterThanOrEqual(MIN_COMPLETE_SHARE * 600);
    expect(dropped.at(-2)?.args.complete ?? 0).toBeLessThan(MIN_COMPLETE_SHARE * 600);
    // A complete pool, or one half complete, keeps every model.
    const whole = syntheticPace({ models: 50, instances: 600, tasks: 6, dims: 2, targets: 1, targetInstances: 40, seed: 'gaps' });
    expect(prepareData(whole.matrix, whole.targets, { bootstrap: 0, seed: '1' }).data!.models).toHaveLength(50);
    const oneGap = { ...whole.matrix, observed: whole.matrix.observed.slice() };
    for (let c = 0; c < 600; c += 6) oneGap.observed[3 * 600 + c] = 0; // model 3 lacks one benchmark of six
    const kept = prepareData(oneGap, whole.targets, { bootstrap: 0, seed: '1' });
    expect(kept.data!.models).toHaveLength(50);
    expect(kept.findings.map((f) => f.code)).not.toContain('pace-model-dropped-incomplete');
  });

  it('refuses a share outside [0, 1) and a population too small to fit', async () => {
    expect((await cli('simulate', '--models', '12', '--missing', '1', '--out', path.join(dir, 'x'))).code).toBe(2);
    expect((await cli('simulate', '--models', '3', '--out', path.join(dir, 'y'))).code).toBe(2);
  });
});
