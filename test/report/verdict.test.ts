/** The verdict in words: headline kind and reasons, per-target notes beside the win probabilities, and "What next". */
import { describe, expect, it } from 'vitest';
import type { CheckResult, CheckTargetResult } from '../../generator/core/report/check-result.js';
import { checkVerdict, verdictKind, whatNext, winNote } from '../../generator/core/report/verdict.js';
import { checkReportPage } from '../../generator/core/report/checkpoint-report.js';
import { renderReportMarkdown } from '../../generator/core/report/html.js';
import type { PaceModelFile } from '../../generator/core/pace/model-file/model-file.js';

const wins = (p: number) => Array.from({ length: 6 }, (_, i) => ({ model: `ref-${i}`, score: 0.1 + 0.05 * i, probability: p }));
const skill = { verdict: 'no-demonstrated-difference' as const, pValue: 0.4, mae: 0.2, meanMae: 0.19, maeDifference: 0.01, interval: [-0.02, 0.04] as [number, number], folds: 6, models: 6, baselines: [] };

function target(over: Partial<CheckTargetResult>): CheckTargetResult {
  return {
    target: 'swe-bench', scale: 'fraction', predicted: 0.4, interval: [0.3, 0.5], intervals: [], skill, concerns: [], outOfRange: [], consistency: null, guarded: false,
    minScore: null, proxyInstances: 10, missingInstances: 0, missingFraction: 0, missing: [], checks: { minScore: null, maxMissing: null }, status: 'unchecked',
    expectedRank: 1.5, winProbabilities: wins(0.9), ...over,
  };
}

function result(targets: CheckTargetResult[], over: Partial<CheckResult> = {}): CheckResult {
  return {
    format: 'aptpace-check-result', version: 1, model: 'ckpt-9', step: null, passed: false, exitCode: 1, maxMissing: null,
    modelFile: { path: 'fit/model.json', sha256: 'a', matrixSha256: 'b', targetsSha256: 'c', versions: {}, proxyInstances: 10 },
    inputs: { kind: 'store', paths: ['runs/store'], mapping: null }, history: null, found: true, targets, unknownThresholds: [], findings: [], ...over,
  };
}

describe('verdict in words', () => {
  it('a FAIL beside "likely beats 6 of 6" says why: the target cannot be judged, and so are its win probabilities', () => {
    const t = target({ status: 'cannot-judge', concerns: ['no-demonstrated-skill'] });
    const r = result([t]);
    expect(verdictKind(r)).toBe('cannot-judge');
    expect(checkVerdict(r).text).toMatch(/^cannot judge: swe-bench: not judged because the fit shows no skill over the mean predictor/);
    expect(winNote(t, 6, 6)).toMatch(/^not vouched for/);
    const next = whatNext(r).join('\n');
    expect(next).toContain('aptpace fit --store STORE --out fit');
    expect(next).toContain('--allow-unproven');
  });

  it('a failed threshold above every training model is explained beside the win probabilities; an interval reaching it makes the shortfall uncertain', () => {
    const t = target({ minScore: 0.45, checks: { minScore: 'fail', maxMissing: null }, status: 'fail' });
    const r = result([t]);
    expect(verdictKind(r)).toBe('below-threshold');
    expect(checkVerdict(r).text).toBe('below threshold: swe-bench: predicted 0.400 < required 0.450');
    expect(winNote(t, 6, 6)).toBe('fails the threshold although it likely beats 6 of 6: predicted 0.400 < min score 0.450, which is above every training model (best 0.350)');
    expect(whatNext(r).join('\n')).toContain('The 95% interval [0.300, 0.500] reaches the threshold');
    const sure = result([{ ...t, interval: [0.3, 0.42] }]);
    expect(whatNext(sure).join('\n')).toContain('Even the 95% interval’s upper end is below the threshold.');
  });

  it('missing data: the harness command for the fit’s proxy set, and the re-check with the run’s own inputs', () => {
    const absent = result([target({ predicted: null, status: 'no-prediction' })], { found: false });
    expect(verdictKind(absent)).toBe('missing-data');
    expect(checkVerdict(absent).text).toMatch(/^missing data: checkpoint ckpt-9 is not in the inputs/);
    expect(whatNext(absent).join('\n')).toContain('--include_path fit/proxy-suite --tasks SUITE --log_samples --output_path runs/ckpt-9');
    const gappy = result([target({ missingInstances: 6, missingFraction: 0.6, checks: { minScore: null, maxMissing: 'fail' }, status: 'fail' })], { maxMissing: 0.2 });
    expect(verdictKind(gappy)).toBe('missing-data');
    expect(whatNext(gappy).join('\n')).toContain('aptpace check --model-file fit/model.json --model ckpt-9 --store runs/store --out OUT');
  });

  it('a pass without thresholds suggests one and points at the series report', () => {
    const r = result([target({})], { passed: true, exitCode: 0 });
    const next = whatNext(r);
    expect(next[0]).toContain('aptpace report --store runs/store --model-file fit/model.json --history reports/history.jsonl --out reports/series');
    expect(next[1]).toContain('--min-score TARGET=VALUE');
    expect(next[0]).toContain('run check with --history reports/history.jsonl --step STEP');
    // Flags this check already had are not suggested again; the series uses its own history file.
    const kept = whatNext(result([target({})], { passed: true, exitCode: 0, history: 'ci/hist.jsonl', step: 1200 }));
    expect(kept[0]).not.toContain('--step STEP');
    expect(kept[0]).toContain('--history ci/hist.jsonl --out reports/series');
    // A pass on the point prediction whose 80% interval reaches below the threshold says so.
    const close = whatNext(result([target({ minScore: 0.38, status: 'pass', intervals: [{ level: 0.8, lower: 0.3, upper: 0.5, unbounded: false }] })], { passed: true, exitCode: 0 }));
    expect(close.join('\n')).toContain('swe-bench: the prediction 0.400 meets 0.380, but its 80% interval [0.300, 0.500] reaches below it: the pass is not certain');
    const clear = whatNext(result([target({ minScore: 0.2, status: 'pass', intervals: [{ level: 0.8, lower: 0.3, upper: 0.5, unbounded: false }] })], { passed: true, exitCode: 0 }));
    expect(clear.join('\n')).not.toContain('not certain');
    const noStep = whatNext(result([target({})], { passed: true, exitCode: 0, history: 'ci/hist.jsonl' }));
    expect(noStep[0]).toContain('add --step STEP');
    expect(noStep[0]).not.toContain('run check with --history');
  });

  it('the page puts "What next" first, and the win table carries the per-target note', () => {
    const model = { targets: [{ target: 'swe-bench', trainingModels: [], displayFactor: 1, skillMap: [] }], skillMap: [], proxy: [] } as unknown as PaceModelFile;
    const page = checkReportPage(result([target({ status: 'cannot-judge', concerns: ['outside-training-range'], outOfRange: [{} as any] })]), model, []);
    expect(page.sections[0]!.heading).toBe('What next');
    expect(page.sections[0]!.bullets!.join(' ')).toContain('lies outside every training model on 1 embedding coordinate(s)');
    const md = renderReportMarkdown(page);
    expect(md).toContain('| swe-bench | 6 of 6 | ref-5 (P = 0.90) | not vouched for:');
  });
});

describe('evaluate report: the mean baseline’s Spearman', () => {
  it('is explained where it is shown (−1 by construction under leave-one-out)', async () => {
    const { renderLoocvTable } = await import('../../generator/core/pace/evaluation/report.js');
    const method = (name: string, spearman: number) => ({ method: name, metrics: { mae: 0.1, spearman, pearson: spearman, r2: 0.1 }, pairAccuracy: 0.5 });
    const t = { target: 'swe', scale: 'raw', models: ['a', 'b', 'c'], truth: [0.1, 0.2, 0.3], methods: [method('pace', 0.5), method('mean', -1)], comparisons: [], coverage: [], budgetCurve: [], nestedChoices: [], guardedPredictions: 0 };
    const md = renderLoocvTable({ pool: { models: 3, instances: 10 }, options: { bootstrap: 10, svdScope: 'fold' }, targets: [t] } as any);
    expect(md).toContain('| mean | 0.10 | -1.000 |');
    expect(md).toContain('The mean baseline’s Spearman is −1 by construction');
    const withoutMean = renderLoocvTable({ pool: { models: 3, instances: 10 }, options: { bootstrap: 10, svdScope: 'fold' }, targets: [{ ...t, methods: [method('pace', 0.5)] }] } as any);
    expect(withoutMean).not.toContain('by construction');
  });
});

describe('Markdown escaping of numbers', () => {
  it('leaves a score such as 0.474 alone but still escapes a real list marker', async () => {
    const { escapeMarkdown } = await import('../../generator/core/report/html.js');
    expect(escapeMarkdown('0.474 [0.331, 0.617]')).toBe('0.474 [0.331, 0.617]');
    expect(escapeMarkdown('1. item')).toBe('\\1. item');
    expect(escapeMarkdown('2)')).toBe('\\2)');
  });
});
