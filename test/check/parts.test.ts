/** The pieces of `aptpace check` in isolation: verdict rules, history file, and the new chart kinds (hand-computed geometry). */
import { describe, expect, it } from 'vitest';
import { MemoryVfs } from '../../generator/core/kernel/memory-vfs.js';
import { evaluateCheck } from '../../generator/core/report/check-result.js';
import { otherModelFileFinding, readHistory, serializeHistory, trendPositions, upsertHistory, type HistoryEntry } from '../../generator/core/report/history.js';
import { barChartSvg, groupedBarChartSvg, trendChartSvg } from '../../generator/core/report/svg.js';
import { renderReportHtml, renderReportMarkdown } from '../../generator/core/report/html.js';
import type { PaceModelFile } from '../../generator/core/pace/model-file.js';
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
  skill: { verdict: 'better', mae: 1, meanMae: 2, maeDifference: -1, interval: [-1.5, -0.5], folds: 13 },
  outOfRange: [],
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

describe('chart kinds added for the check report', () => {
  it('grouped bars scale from zero (plot height 300 − 36 − 56 = 208 px)', () => {
    const svg = groupedBarChartSvg(['a', 'b'], [{ name: 's1', values: [0.5, 1] }, { name: 's2', values: [0.25, 0] }], { title: 't', domain: [0, 1], height: 300 });
    const heights = [...svg.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="([\d.]+)" fill="#[0-9a-f]+"><title>/g)].map((m) => Number(m[1]));
    expect(heights).toEqual([104, 52, 208, 0]);
  });

  it('trend points sit at their step between the padded plot edges, sorted, the current one highlighted', () => {
    const svg = trendChartSvg(
      [
        { x: 300, y: 2, low: 1, high: 3, label: 'c' },
        { x: 100, y: 0, low: 0, high: 1, label: 'a' },
        { x: 200, y: 4, label: 'b', highlight: true },
      ],
      { title: 'trend', threshold: 1, thresholdLabel: 'min score' },
    );
    // width 480: left = 64 + 24 = 88, right = 480 − 20 − 24 = 436; steps 100..300 → 88, 262, 436.
    const circles = [...svg.matchAll(/<circle cx="([\d.]+)" cy="[\d.]+" r="(\d)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(circles).toEqual([[88, 4], [262, 6], [436, 4]]);
    expect(svg).toContain('min score 1</text>');
    // The band joins the two points that have intervals: highs left→right, then lows right→left.
    expect(svg).toMatch(/<polygon points="88,[\d.]+ 436,[\d.]+ 436,[\d.]+ 88,[\d.]+"/);
  });

  it('bar threshold lines take a label', () => {
    expect(barChartSvg([{ label: 'm', value: 0.7 }], { title: 'p', domain: [0, 1], threshold: 0.5, thresholdLabel: 'even odds' })).toContain('>even odds 0.5</text>');
  });

  it('notices are escaped in HTML and quoted in Markdown', () => {
    const page = { title: 'x', verdict: { ok: true, text: 'fine' }, notices: [{ level: 'warning' as const, text: 'a <b> & c' }], sections: [] };
    expect(renderReportHtml(page)).toContain('<p class="notice warning">a &lt;b&gt; &amp; c</p>');
    expect(renderReportHtml(page)).toContain('<strong>PASS</strong> — fine');
    // Updated: the old expectation ('> a <b> & c') asserted raw HTML passing into a CI summary (issue 12).
    expect(renderReportMarkdown(page)).toContain('> a \\<b> & c');
  });
});
