/** The pieces of `aptpace check` in isolation: verdict rules, history file, and the chart specs the report uses. */
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { evaluateCheck } from '../../generator/core/report/check-result.js';
import { otherModelFileFinding, readHistory, serializeHistory, trendPositions, upsertHistory, type HistoryEntry } from '../../generator/core/report/history.js';
import { barChartSpec, groupedBarChartSpec, trendChartSpec } from '../../generator/core/report/charts/specs.js';
import { renderCharts } from '../../generator/core/report/charts/render.js';
import { renderReportHtml, renderReportMarkdown } from '../../generator/core/report/html.js';
import type { PaceModelFile } from '../../generator/core/pace/model-file/model-file.js';
import type { TargetForecast } from '../../generator/core/pace/predict.js';

const part = (instances: string[]) => ({ instances, k: 1, basis: [], proj: [], goalA: {} as any, goalB: null });
const model = {
  targets: [
    { target: 'swe', scale: 'percent', local: part(['a/1', 'a/2', 'b/1']), global: part(['b/1', 'b/2']) },
    { target: 'gaia', scale: 'percent', local: part(['a/1', 'c/1']), global: null },
  ],
} as unknown as PaceModelFile;

const forecast = (target: string, predicted: number, probabilities: number[]): TargetForecast => ({
  target,
  scale: 'percent',
  predicted,
  interval: [predicted - 1, predicted + 1],
  intervals: [{ level: 0.95, lower: predicted - 1, upper: predicted + 1, unbounded: false }],
  skill: { verdict: 'better', pValue: 0.001, mae: 1, meanMae: 2, maeDifference: -1, interval: [-1.5, -0.5], folds: 13, models: 13, baselines: [] },
  outOfRange: [],
  consistency: null,
  concerns: [],
  local: predicted,
  global: null,
  guarded: false,
  proxyInstances: 0,
  missingInstances: 0,
  winProbabilities: probabilities.map((p, i) => ({ model: `m${i}`, score: 10 * i, probability: p })),
});

describe('evaluateCheck', () => {
  const scores = new Map([['a/1', 1], ['a/2', 0], ['b/2', 1], ['c/1', 0]]);

  it('applies --min-score (a score equal to the threshold passes) and counts missing keys per target', () => {
    const ev = evaluateCheck(model, 'ckpt', scores, [forecast('swe', 30, [0.2, 0.9]), forecast('gaia', 20, [0.5])], { swe: 30, gaia: 20.0001 }, null);
    expect(ev.targets.map((t) => [t.target, t.status, t.checks.minScore])).toEqual([['swe', 'pass', 'pass'], ['gaia', 'fail', 'fail']]);
    expect(ev.findings.map((f) => [f.code, f.args.target])).toEqual([['pace-threshold-failed', 'gaia']]);
    expect(ev.thresholdFailed).toBe(true);
    // swe's proxy keys: a/1 a/2 b/1 b/2 (b/1 in both parts counted once); b/1 is unscored.
    expect(ev.targets[0]).toMatchObject({ proxyInstances: 4, missingInstances: 1, missing: ['b/1'], missingFraction: 0.25 });
    expect(ev.targets[1]).toMatchObject({ proxyInstances: 2, missingInstances: 0, missing: [] });
    // 1 + (1 − 0.2) + (1 − 0.9) = 1.9
    expect(ev.targets[0]!.expectedRank).toBeCloseTo(1.9, 12);
  });

  it('--max-missing compares the missing fraction per target; an unpredicted target fails its threshold', () => {
    const atLimit = evaluateCheck(model, 'ckpt', scores, [forecast('swe', 30, [])], {}, 0.25);
    expect(atLimit.targets.map((t) => t.status)).toEqual(['pass', 'no-prediction']);
    expect(atLimit.thresholdFailed).toBe(false);
    const over = evaluateCheck(model, 'ckpt', scores, [forecast('swe', 30, [])], { gaia: 0 }, 0.2);
    expect(over.findings.map((f) => f.code)).toEqual(['check-missing-too-high', 'pace-threshold-failed']);
    expect(over.targets.map((t) => t.status)).toEqual(['fail', 'no-prediction']);
    expect(over.targets[1]!.checks).toEqual({ minScore: 'fail', maxMissing: 'pass' });
  });

  it('reports thresholds for targets the model file does not predict', () => {
    const ev = evaluateCheck(model, 'ckpt', scores, [], { zeta: 1, alpha: 2 }, null);
    expect(ev.unknownThresholds).toEqual(['alpha', 'zeta']);
    expect(ev.findings.map((f) => f.code)).toEqual(['pace-threshold-unknown-target', 'pace-threshold-unknown-target']);
    expect(ev.thresholdFailed).toBe(true);
  });
});

const entry = (model: string, step: number | null, predicted = 1): HistoryEntry => ({
  format: 'aptpace-check-history',
  version: 1,
  model,
  step,
  modelFileSha256: 'abc',
  passed: true,
  targets: [{ target: 'swe', predicted, interval: [predicted - 1, predicted + 1], minScore: null, missingInstances: 0, proxyInstances: 4, status: 'unchecked' }],
});

describe('history file', () => {
  const line = (e: HistoryEntry) => JSON.stringify(e);
  const text = [line(entry('a', 2)), '', line(entry('b', 1)), line(entry('a', 3, 7)), '{"format":"other"}', 'not json', ''].join('\n');

  it('reads entries (a repeated name keeps its first position and last value); foreign lines block rewriting', async () => {
    const vfs = new MemoryVfs({ '/h.jsonl': text });
    const read = await readHistory(vfs, '/h.jsonl');
    expect(read.entries.map((e) => [e.model, e.step, e.targets[0]!.predicted])).toEqual([['a', 3, 7], ['b', 1, 1]]);
    expect(read.findings.map((f) => [f.code, f.path.line])).toEqual([['check-history-duplicate-model', 4], ['check-history-bad-line', 5], ['check-history-bad-line', 6]]);
    expect(read.writable).toBe(false);
    const forced = await readHistory(vfs, '/h.jsonl', { force: true });
    expect(forced.findings.map((f) => f.code)).toEqual(['check-history-duplicate-model', 'check-history-line-dropped', 'check-history-line-dropped']);
    expect(forced.writable).toBe(true);
    expect(await readHistory(vfs, '/missing.jsonl')).toEqual({ entries: [], findings: [], writable: true });
    const bad = new MemoryVfs({ '/bad.jsonl': Uint8Array.from([0xff, 0xfe, 0x0a]) });
    expect((await readHistory(bad, '/bad.jsonl')).findings.map((f) => f.code)).toEqual(['check-history-bad-line']);
  });

  it('upserts by checkpoint name and round-trips through its own serialisation', async () => {
    const entries = upsertHistory(upsertHistory([entry('a', 1), entry('b', 2)], entry('a', 1, 5)), entry('c', 3));
    expect(entries.map((e) => [e.model, e.targets[0]!.predicted])).toEqual([['a', 5], ['b', 1], ['c', 1]]);
    const vfs = new MemoryVfs({ '/h.jsonl': serializeHistory(entries) });
    expect((await readHistory(vfs, '/h.jsonl')).entries).toEqual(entries);
  });

  it('flags earlier entries from another model file, but not the re-checked checkpoint itself', () => {
    const entries = [entry('a', 1), { ...entry('b', 2), modelFileSha256: 'old' }, { ...entry('c', 3), modelFileSha256: 'old' }];
    const f = otherModelFileFinding(entries, { model: 'c', sha256: 'abc' }, 'h.jsonl');
    expect([f?.code, f?.args.count, f?.args.models]).toEqual(['check-history-other-model-file', 1, 'b']);
    expect(otherModelFileFinding(entries.slice(0, 1), { model: 'z', sha256: 'abc' }, 'h.jsonl')).toBeNull();
  });

  it('orders the trend by step only when every entry has one', () => {
    expect(trendPositions([entry('a', 30), entry('b', 10), entry('c', 20)]).points.map((p) => [p.entry.model, p.x])).toEqual([['b', 10], ['c', 20], ['a', 30]]);
    const mixed = trendPositions([entry('a', 30), entry('b', null)]);
    expect(mixed.axis).toBe('order');
    expect(mixed.points.map((p) => [p.entry.model, p.x])).toEqual([['a', 1], ['b', 2]]);
  });
});

describe('chart specs used by the check report', () => {
  it('grouped bars start at 0, keep category order and draw one bar per series', async () => {
    const c = groupedBarChartSpec('g', 't', ['b-task', 'a-task'], [{ name: 's1', values: [0.5, 1] }, { name: 's2', values: [0.25, 0] }], { xTitle: 'share', maxValue: 1 });
    const enc = (c.spec as any).encoding;
    expect(enc.x.scale.domain).toEqual([0, 1]);
    expect((c.spec as any).data.values.map((d: any) => [d.category, d.series, d.value])).toEqual([['b-task', 's1', 0.5], ['b-task', 's2', 0.25], ['a-task', 's1', 1], ['a-task', 's2', 0]]);
    const [r] = await renderCharts([c]);
    // Four data rows → four bar paths in the rect mark.
    expect(r!.svg.match(/class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/)![1]!.match(/<path/g)).toHaveLength(4);
  });

  it('trend: rows sorted by step, the current one highlighted and named in the caption, no band claimed without one', () => {
    const c = trendChartSpec('t', 'trend', [
      { x: 300, value: 2, low: 1, high: 3, label: 'c' },
      { x: 100, value: 0, low: 0, high: 1, label: 'a' },
      { x: 200, value: 4, label: 'b', highlight: true },
    ], { xTitle: 'step', yTitle: 'score', maxValue: 100, threshold: 1, highlightMeaning: 'b, the checkpoint of this report' });
    expect((c.spec as any).data.values.map((d: any) => [d.x, d.role])).toEqual([[100, 'history'], [200, 'checkpoint'], [300, 'history']]);
    expect(c.caption).toContain('y axis from 0 to 100.');
    expect(c.caption).toContain('The shaded band is the prediction interval.');
    expect(c.caption).toContain('Red points: b, the checkpoint of this report.');
    const bare = trendChartSpec('t', 'trend', [{ x: 1, value: 2, label: 'a' }, { x: 2, value: 3, label: 'b' }], { xTitle: 'step', yTitle: 'score', maxValue: 0 });
    expect(bare.caption).toContain('No intervals are drawn.');
    expect(bare.caption).not.toMatch(/band|Red/);
    expect((bare.spec as any).layer.some((l: any) => l.mark?.type === 'area')).toBe(false);
  });

  it('reference rules are all drawn, but a label that would overprint its neighbour is left off (and the caption says so)', () => {
    const refs = [{ label: 'r-high', value: 0.8 }, { label: 'r-close', value: 0.79 }, { label: 'r-low', value: 0.2 }];
    const c = trendChartSpec('t', 'trend', [{ x: 1, value: 0.5, label: 'a' }], { xTitle: 'step', yTitle: 'score', maxValue: 1, references: refs });
    const refLayer = (c.spec as any).layer.find((l: any) => l.data?.values?.[0]?.label === 'r-high');
    expect(refLayer.data.values.map((v: any) => [v.label, v.shown])).toEqual([['r-high', 'r-high'], ['r-close', ''], ['r-low', 'r-low']]);
    expect(c.caption).toContain('2 of 3 labelled');
  });

  it('the threshold label of a bar chart sits above the plot (y = 0), not over a bar', async () => {
    const c = barChartSpec('b', 'p', [{ label: 'm', value: 0.7 }], { xTitle: 'win probability', maxValue: 1, threshold: 0.5, thresholdLabel: 'even odds' });
    const text = (c.spec as any).layer.at(-1).layer[1];
    expect([text.mark.y, text.mark.baseline]).toEqual([0, 'bottom']);
    const [r] = await renderCharts([c]);
    expect(r!.svg).toContain('>even odds 0.5</text>');
  });

  it('notices are escaped in HTML and quoted in Markdown', () => {
    const page = { title: 'x', verdict: { ok: true, text: 'fine' }, notices: [{ level: 'warning' as const, text: 'a <b> & c' }], sections: [] };
    expect(renderReportHtml(page)).toContain('<p class="notice warning">a &lt;b&gt; &amp; c</p>');
    expect(renderReportHtml(page)).toContain('<strong>PASS</strong> — fine');
    // Updated: the old expectation ('> a <b> & c') asserted raw HTML passing into a CI summary (issue 12).
    expect(renderReportMarkdown(page)).toContain('> a \\<b> & c');
  });
});
