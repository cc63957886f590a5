/** Bad or awkward inputs: each gives a typed finding and documented behaviour. */
import { describe, expect, it } from 'vitest';
import { prepareData } from '../../generator/core/pace/inputs/prepare.js';
import { fitPace } from '../../generator/core/pace/fit.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import type { ScoreMatrix, TargetTable } from '../../generator/core/logs/matrix.js';

const opts = { bootstrap: 10, seed: '1' };

function tiny(models: string[], rows: number[][], observed?: number[][]): ScoreMatrix {
  const S = rows[0]!.length;
  return {
    models: models.map((name) => ({ name, sources: [name] })),
    instances: Array.from({ length: S }, (_, c) => ({ key: `t${c % 2}/${c}`, task: `t${c % 2}`, doc_id: String(c), metric: 'acc' })),
    values: Float64Array.from(rows.flat()),
    observed: Uint8Array.from(observed ? observed.flat() : rows.flat().map(() => 1)),
    provenance: {},
  };
}

const target = (scores: Record<string, number>, name = 'swe'): TargetTable => ({ target: name, scores, scale: 'percent', provenance: {} });
const codes = (fs: Array<{ code: string }>) => fs.map((f) => f.code);

describe('data preparation', () => {
  const models = ['a', 'b', 'c', 'd', 'e'];
  const rows = [
    [1, 0, 1, 1, 0.5],
    [0, 0, 1, 0, 0.25],
    [1, 1, 1, 0, 0.75],
    [0, 1, 1, 1, 1],
    [1, 1, 1, 0, 0],
  ];
  const scores = { a: 10, b: 20, c: 30, d: 40, e: 50 };

  it('a target with fewer than 4 models is an error and is skipped; the others still run', () => {
    const { data, findings } = prepareData(tiny(models, rows), [target({ a: 1, b: 2, c: 3 }, 'small'), target(scores)], opts);
    expect(codes(findings)).toContain('pace-target-too-few-models');
    const f = findings.find((x) => x.code === 'pace-target-too-few-models')!;
    expect(f.severity).toBe('error');
    expect(f.args).toMatchObject({ target: 'small', models: 3, minimum: 4 });
    expect(data!.targets.map((t) => t.name)).toEqual(['swe']);
  });

  it('constant columns are reported and never selectable', () => {
    const { data, findings } = prepareData(tiny(models, rows), [target(scores)], opts);
    expect(findings.find((f) => f.code === 'pace-instances-constant')!.args.count).toBe(1);
    expect(data!.instances.map((i) => i.doc_id)).toEqual(['0', '1', '3', '4']);
  });

  it('an all-missing model row leaves the pool with a warning; a partly missing instance is dropped, never zero-filled', () => {
    const observed = rows.map((r, i) => r.map((_, c) => (i === 4 ? 0 : i === 1 && c === 0 ? 0 : 1)));
    const { data, findings } = prepareData(tiny(models, rows, observed), [target(scores)], opts);
    expect(codes(findings)).toEqual(expect.arrayContaining(['pace-model-no-scores', 'pace-instances-incomplete', 'pace-target-model-not-in-sources']));
    expect(findings.find((f) => f.code === 'pace-model-no-scores')!.args.model).toBe('e');
    expect(data!.models).toEqual(['a', 'b', 'c', 'd']);
    // Column 0 is missing for b → not selectable; column 2 constant → not selectable.
    expect(data!.instances.map((i) => i.doc_id)).toEqual(['1', '3', '4']);
    expect(findings.find((f) => f.code === 'pace-instances-incomplete')!.args).toMatchObject({ count: 1, byTask: 't0=1' });
  });

  it('a low-coverage model leaves the pool instead of shrinking everyone’s instances', () => {
    const observed = rows.map((r, i) => r.map((_, c) => (i === 0 && c < 3 ? 0 : 1)));
    const { data, findings } = prepareData(tiny(models, rows, observed), [target(scores)], opts);
    expect(findings.find((f) => f.code === 'pace-model-low-coverage')!.args).toMatchObject({ model: 'a', observed: 2, instances: 5 });
    expect(data!.models).toEqual(['b', 'c', 'd', 'e']);
    // Kept by a lower coverage bar, it still leaves 3 of 5 instances incomplete: under the
    // default it then leaves the pool for that; with --min-complete-share 0 it stays.
    const kept = prepareData(tiny(models, rows, observed), [target(scores)], { ...opts, minModelCoverage: 0.3, minCompleteShare: 0 });
    expect(kept.data!.models).toEqual(models);
    const trimmed = prepareData(tiny(models, rows, observed), [target(scores)], { ...opts, minModelCoverage: 0.3 });
    expect(trimmed.findings.filter((f) => f.code === 'pace-model-dropped-incomplete').map((f) => f.args.model)).toEqual(['a']);
    expect(trimmed.data!.models).toEqual(['b', 'c', 'd', 'e']);
  });

  it('a model in the targets but not in the sources is reported and not used; source-only models stay out of the pool', () => {
    const { data, findings } = prepareData(tiny(models, rows), [target({ ...scores, ghost: 99 }), target({ a: 1, b: 2, c: 3, d: 4 }, 'other')], opts);
    const ghost = findings.filter((f) => f.code === 'pace-target-model-not-in-sources');
    expect(ghost.map((f) => f.args.model)).toEqual(['ghost']);
    expect(data!.targets.find((t) => t.name === 'swe')!.rows.length).toBe(5);
    const onlySome = prepareData(tiny(models, rows), [target({ a: 1, b: 2, c: 3, d: 4 })], opts);
    expect(codes(onlySome.findings)).toContain('pace-source-model-not-in-pool');
    expect(onlySome.data!.models).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a constant target is an error; no usable instance at all is an error', () => {
    const constant = prepareData(tiny(models, rows), [target({ a: 5, b: 5, c: 5, d: 5, e: 5 })], opts);
    expect(codes(constant.findings)).toContain('pace-target-constant');
    const flat = prepareData(tiny(models, rows.map(() => [1, 1, 1, 1, 1])), [target(scores)], opts);
    expect(flat.data).toBeNull();
    expect(codes(flat.findings)).toContain('pace-no-usable-instances');
  });

  it('a target without per-instance results runs without bootstrap (info), and fit reports a budget it could not fill', async () => {
    const syn = syntheticPace({ models: 8, instances: 60, seed: 'x', aggregateOnly: true, targets: 1 });
    const res = await fitPace(syn.matrix, syn.targets, { bootstrap: 20, alpha: 0.1, seed: '1', svdScope: 'fold', configs: { 'agentic-0': { budget: 500, q: 0.5, m: 0.5, ncH: 2, ncD: 2 } } });
    expect(codes(res.findings)).toEqual(expect.arrayContaining(['pace-target-no-instances', 'pace-budget-short']));
    const t = res.model!.targets[0]!;
    expect(t.bootstrap).toBe(0);
    expect(t.local!.goalA.replicateSlopes).toEqual([]);
    expect(t.linear.weights.length).toBe(res.findings.find((f) => f.code === 'pace-budget-short')!.args.selected);
  });
});
