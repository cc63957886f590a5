import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildProxySuite } from '../../generator/core/workflow/proxy-suite.js';
import { addPacePrediction, paceMetricNames, paceSuiteModel, reportingTask, PACE_METRIC_FIELDS } from '../../generator/core/workflow/proxy-suite-pace.js';
import { loadPaceModule } from '../../generator/core/emit/templates.js';
import { nodeVfs as paceVfs } from '../../generator/core/kernel/node-vfs.js';

const PACE_PY = await loadPaceModule(paceVfs);
import { fitPace } from '../../generator/core/pace/fit.js';
import { predictPace } from '../../generator/core/pace/predict.js';
import { syntheticPace } from '../../generator/core/pace/inputs/synthetic.js';
import type { PaceModelFile } from '../../generator/core/pace/model-file/model-file.js';
import { hasPython, inCi, python, repoRoot } from '../helpers/env.js';
import { tempDir } from '../helpers/tmp.js';
import { readSuite } from '../helpers/suite.js';

const suiteDir = path.join(repoRoot, 'dist-tasks', 'aptpace_fixtures');

const ids = (task: string) => readFileSync(path.join(suiteDir, 'data', `${task}.test.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l).id as string);

async function syntheticModel(): Promise<PaceModelFile> {
  const syn = syntheticPace({ models: 12, instances: 240, dims: 2, targets: 2, targetInstances: 60, seed: 'proxy-pace' });
  const configs = { 'agentic-0': { budget: 24, q: 0.5, m: 0.6, ncH: 2, ncD: 2 }, 'agentic-1': { budget: 16, q: 1, m: 1, ncH: 2, ncD: 1 } };
  const res = await fitPace(syn.matrix, syn.targets, { bootstrap: 30, alpha: 0.1, seed: '3', svdScope: 'fold', configs });
  return res.model!;
}

describe('proxy suite: the prediction metrics', () => {
  it('names one metric family per target, lowercased, without clashes (also with the interval suffixes)', () => {
    const names = paceMetricNames(['SWE-bench', 'swe bench', 'gaia', 'x', 'x lo80']);
    expect([...names.values()]).toEqual(['pace_swe_bench', 'pace_swe_bench_2', 'pace_gaia', 'pace_x', 'pace_x_lo80_2']);
  });

  it('adds a class line to each kept task, the metrics to the top group only, and the model data; deterministic', async () => {
    const model = await syntheticModel();
    const planIds = ids('aptpace_swe_plan_mcq');
    const drIds = ids('aptpace_dr_answer');
    // The fitted model, pointed at three documents of the fixture suite.
    const proxy = [
      { key: `aptpace_dr_answer/${drIds[0]}`, task: 'aptpace_dr_answer', doc_id: drIds[0]!, metric: 'exact_match,first_line' },
      { key: `aptpace_swe_plan_mcq/${planIds[1]}`, task: 'aptpace_swe_plan_mcq', doc_id: planIds[1]!, metric: 'acc' },
      { key: `aptpace_swe_plan_mcq/${planIds[4]}`, task: 'aptpace_swe_plan_mcq', doc_id: planIds[4]!, metric: 'acc' },
    ];
    const m = { ...model, proxy };
    const byTask = new Map([['aptpace_swe_plan_mcq', new Set([planIds[1]!, planIds[4]!])], ['aptpace_dr_answer', new Set([drIds[0]!])]]);
    const files = readSuite(suiteDir);
    const built = buildProxySuite({ files, proxy: byTask });
    expect([...built.taskFiles]).toEqual([['aptpace_dr_answer', 'aptpace_dr_answer.yaml'], ['aptpace_swe_plan_mcq', 'aptpace_swe_plan_mcq.yaml']].sort());
    expect(built.topGroupFiles).toEqual(['_aptpace_fixtures.yaml']);
    const out = addPacePrediction(built, m, PACE_PY);
    expect(built.files.get('aptpace_swe_plan_mcq.yaml')).toBe(files.get('aptpace_swe_plan_mcq.yaml')); // input untouched
    for (const f of ['aptpace_swe_plan_mcq.yaml', 'aptpace_dr_answer.yaml']) {
      const text = out.get(f)!;
      expect(text.startsWith(files.get(f)!)).toBe(true);
      expect(text.match(/^class: !function aptpace_pace\.PaceTask$/gm)).toHaveLength(1);
    }
    // Documents byte for byte, as before.
    expect(out.get('data/aptpace_swe_plan_mcq.test.jsonl')).toBe(built.files.get('data/aptpace_swe_plan_mcq.test.jsonl'));
    expect(out.get('aptpace_pace.py')).toBe(PACE_PY);
    const top = parse(out.get('_aptpace_fixtures.yaml')!);
    const pace = top.aggregate_metric_list.filter((e: { metric: string }) => e.metric.startsWith('pace_'));
    const names = paceMetricNames(model.targets.map((t) => t.target));
    expect(pace.map((e: { metric: string }) => e.metric)).toEqual([...names.values()].flatMap((n) => PACE_METRIC_FIELDS.map((f) => n + f)));
    // One reporting task carries the prediction (the first by name whose proxies share one filter),
    // so the group names exactly its filter and the table prints each metric twice, not per task.
    for (const e of pace) expect(e).toEqual({ metric: e.metric, aggregation: 'mean', weight_by_size: false, filter_list: ['first_line'] });
    expect(reportingTask(m, new Set(['aptpace_dr_answer', 'aptpace_swe_plan_mcq']))).toEqual({ task: 'aptpace_dr_answer', filter: 'first_line' });
    expect(reportingTask(m, new Set(['aptpace_swe_plan_mcq']))).toEqual({ task: 'aptpace_swe_plan_mcq', filter: 'none' });
    // A task whose proxies are scored under two filters cannot report for the group.
    const mixed = { ...m, proxy: [...proxy, { ...proxy[0]!, key: `${proxy[0]!.key}-b`, metric: 'exact_match,none' }] };
    expect(reportingTask(mixed, new Set(['aptpace_dr_answer', 'aptpace_swe_plan_mcq']))).toEqual({ task: 'aptpace_swe_plan_mcq', filter: 'none' });
    expect(reportingTask(mixed, new Set(['aptpace_dr_answer']))).toBeNull();
    // The original aggregates stay, subgroups are not given the prediction.
    expect(top.aggregate_metric_list[0]).toEqual(parse(files.get('_aptpace_fixtures.yaml')!).aggregate_metric_list[0]);
    expect(out.get('_aptpace_fixtures_swe.yaml')).not.toMatch(/metric: "pace_/);
    const suiteModel = JSON.parse(out.get('pace_model.json')!);
    expect(suiteModel.reporter).toBe('aptpace_dr_answer');
    expect(out.get('README.md')).toMatch(/the group row \(and the `aptpace_dr_answer` task row\) shows/);
    expect(suiteModel.instances).toEqual([
      { key: proxy[0]!.key, task: 'aptpace_dr_answer', metric: 'exact_match' },
      { key: proxy[1]!.key, task: 'aptpace_swe_plan_mcq', metric: 'acc' },
      { key: proxy[2]!.key, task: 'aptpace_swe_plan_mcq', metric: 'acc' },
    ]);
    expect(suiteModel.targets.map((t: { metric: string }) => t.metric)).toEqual([...names.values()]);
    expect(suiteModel.targets[0].local.basis).toEqual(model.targets[0]!.local!.basis);
    expect(suiteModel.targets[0].cv.absResiduals).toEqual(model.targets[0]!.cv.absResiduals);
    expect(out.get('README.md')).toMatch(/## Proxy-only suite: predicted agentic scores/);
    const again = addPacePrediction(buildProxySuite({ files: readSuite(suiteDir), proxy: byTask }), m, PACE_PY);
    expect([...again]).toEqual([...out]);
  });

  it.skipIf(!hasPython && !inCi)('aptpace_pace.py never writes a non-finite number: a target it cannot predict shows -1, not vouched, with its missing count', async () => {
    const model = await syntheticModel();
    const dir = tempDir();
    writeFileSync(path.join(dir, 'pace_model.json'), JSON.stringify(paceSuiteModel(model)));
    writeFileSync(path.join(dir, 'aptpace_pace.py'), PACE_PY);
    const script = [
      'import json, math, sys',
      `sys.path.insert(0, ${JSON.stringify(dir)})`,
      'import aptpace_pace as p',
      'out = {}',
      'for name, scores in (("none", {}), ("one", {p.MODEL["instances"][0]["key"]: 1.0})):',
      '    state = p._fresh()',
      '    state["scores"] = scores',
      '    out[name] = p._predict_all(state)',
      'state = p._fresh()',
      'state["problems"].append("a data-parallel run")',
      'out["parallel"] = p._predict_all(state)',
      'print(json.dumps(out, allow_nan=False))',
    ].join('\n');
    const run = spawnSync(python, ['-c', script], { encoding: 'utf8', timeout: 300_000 });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, Record<string, Record<string, number>>>;
    const keys = model.proxy.length;
    for (const [name, targets] of Object.entries(out))
      for (const [target, fields] of Object.entries(targets)) {
        expect(Object.values(fields).every(Number.isFinite), `${name}/${target}`).toBe(true);
        expect(fields[''], `${name}/${target}`).toBe(-1);
        expect(fields._vouched).toBe(0);
        if (name === 'none') expect(fields._missing).toBeGreaterThan(0);
        if (name === 'parallel') expect(fields._missing).toBe(-1);
      }
    expect(keys).toBeGreaterThan(1);
  });

  it.skipIf(!hasPython && !inCi)('aptpace_pace.py predicts what predict.ts predicts: full, partial, too few, out-of-range checkpoints', async () => {
    const model = await syntheticModel();
    const dir = tempDir();
    writeFileSync(path.join(dir, 'pace_model.json'), JSON.stringify(paceSuiteModel(model)));
    writeFileSync(path.join(dir, 'aptpace_pace.py'), PACE_PY);
    const keys = model.proxy.map((p) => p.key);
    // Scores unlike any training model's (a fixed pseudo-random pattern), then with holes.
    const base = new Map(keys.map((k, i) => [k, ((i * 7919) % 13) / 12]));
    const without = (n: number) => new Map([...base].filter((_, i) => i % Math.ceil(keys.length / n) !== 0));
    const cases: Record<string, Map<string, number>> = {
      full: base,
      partial: without(3),
      fewLeft: new Map([...base].slice(0, 1)),
      allWrong: new Map(keys.map((k) => [k, 0])),
      allRight: new Map(keys.map((k) => [k, 1])),
    };
    const script = [
      'import json, sys',
      `sys.path.insert(0, ${JSON.stringify(dir)})`,
      'import aptpace_pace as p',
      'cases = json.load(sys.stdin)',
      'out = {}',
      'for name, scores in cases.items():',
      '    out[name] = {}',
      '    for t in p.MODEL["targets"]:',
      '        f, why = p._predict(t, scores)',
      '        out[name][t["target"]] = None if f is None else {k: (len(v) if k == "concerns" else v) for k, v in f.items()}',
      'print(json.dumps(out))',
    ].join('\n');
    const run = spawnSync(python, ['-c', script], { input: JSON.stringify(Object.fromEntries(Object.entries(cases).map(([n, m]) => [n, Object.fromEntries(m)]))), encoding: 'utf8', timeout: 300_000 });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const py = JSON.parse(run.stdout);
    const vouchedOrNot = new Set<number>();
    let clipped = false;
    for (const [name, scores] of Object.entries(cases)) {
      const { forecasts } = await predictPace(model, 'ckpt', scores);
      for (const t of model.targets) {
        const f = forecasts.find((x) => x.target === t.target);
        const p = py[name][t.target];
        if (!f) {
          expect(p, `${name}/${t.target}`).toBeNull();
          continue;
        }
        expect(p, `${name}/${t.target}`).not.toBeNull();
        expect(p['']).toBeCloseTo(f.predicted, 9);
        for (const iv of f.intervals) {
          const tag = String(Math.round(iv.level * 100));
          expect(p[`_lo${tag}`]).toBeCloseTo(iv.lower, 9);
          expect(p[`_hi${tag}`]).toBeCloseTo(iv.upper, 9);
        }
        expect(p._missing).toBe(f.missingInstances);
        expect(p.concerns).toBe(f.concerns.length);
        expect(p._vouched).toBe(f.concerns.length ? 0 : 1);
        vouchedOrNot.add(p._vouched);
        if (f.intervals.some((iv) => iv.upper === 100 && !iv.unbounded)) clipped = true;
      }
    }
    // The cases reach the partial placement, a no-prediction, both verdicts, and a clipped interval.
    expect(Object.values(py.fewLeft).some((v) => v === null)).toBe(true);
    expect(Object.values(py.partial).some((v: any) => v && v._missing > 0)).toBe(true);
    expect(vouchedOrNot).toEqual(new Set([0, 1]));
    expect(clipped).toBe(true);
  }, 300_000);
});
