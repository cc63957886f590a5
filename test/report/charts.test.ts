import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderCharts } from '../../generator/core/report/charts/render.js';
import { barChartSpec, trendChartSpec } from '../../generator/core/report/charts/specs.js';
import { browserAvailable, launchBrowser } from '../helpers/browser.js';
import { tempDir } from '../helpers/tmp.js';

const longName = 'new-checkpoint-with-a-very-long-name (predicted)';
const bars = barChartSpec('swe-bench', 'swe-bench: predicted vs reference models', [
  { label: 'ref-model-alpha', value: 0.31, low: 0.31, high: 0.31 },
  { label: longName, value: 0.42, low: 0.35, high: 0.5, highlight: true },
  { label: 'ref-model-omega-instruct-2507-final', value: 0.55 },
], { xTitle: 'resolved rate', threshold: 0.45, thresholdLabel: 'min-score', maxValue: 1 });
const trend = trendChartSpec('trend', 'swe-bench along training', [
  { x: 1000, label: 'step-1000', value: 0.361, low: 0.3, high: 0.42 },
  { x: 2000, label: 'step-2000', value: 0.372, low: 0.31, high: 0.43 },
  { x: 3000, label: 'step-3000', value: 0.366, low: 0.3, high: 0.43, highlight: true },
], { xTitle: 'training step', yTitle: 'predicted resolved rate', maxValue: 1, references: [{ label: 'Qwen2.5-7B', value: 0.3 }] });

describe('report charts (Vega-Lite specs rendered to SVG in Node)', () => {
  it('start value axes at 0, never truncate labels, and say in the caption only what is drawn', () => {
    expect((bars.spec as any).layer[0].encoding.x.scale.domain).toEqual([0, 1]);
    expect((bars.spec as any).config.axis.labelLimit).toBe(0);
    expect(bars.caption).toContain('Whiskers are the prediction intervals');
    const noIntervals = barChartSpec('x', 'x', [{ label: 'a', value: 2 }], { xTitle: 'v' });
    expect(noIntervals.caption).toContain('No intervals are drawn');
    expect(noIntervals.caption).not.toMatch(/whisker|band/i);
    // A 2-point wobble around 0.37 is drawn on a 0–1 axis, not a 0.36–0.37 one.
    const layers = (trend.spec as any).layer;
    expect(layers.find((l: any) => l.mark.type === 'line').encoding.y.scale.domain).toEqual([0, 1]);
    expect(trend.caption).toContain('The shaded band is the prediction interval');
    const single = trendChartSpec('t', 't', [{ x: 1, label: 'a', value: 0.5 }], { xTitle: 'x', yTitle: 'y', maxValue: 1 });
    expect(single.caption).not.toMatch(/band/);
  });

  it('render deterministically with every label whole', async () => {
    const [a, b] = await renderCharts([bars, trend]);
    const again = await renderCharts([bars, trend]);
    expect(again.map((c) => c.svg)).toEqual([a!.svg, b!.svg]);
    expect(a!.svg).toContain(longName.replace('(', '(').replace(/&/g, '&amp;'));
    expect(a!.svg).not.toContain('…');
    expect(b!.svg).toContain('Qwen2.5-7B');
  });

  it('label a trend axis with whole steps, also for a single checkpoint (no "2,500.000000")', async () => {
    const single = trendChartSpec('one', 'one checkpoint', [{ x: 2500, label: 'step-2500', value: 0.3, highlight: true }], { xTitle: 'training step', yTitle: 'y', maxValue: 1 });
    const [one, many] = await renderCharts([single, trend]);
    const labels = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
    expect(labels(one!.svg)).toContain('2,500');
    expect(labels(one!.svg).some((l) => /\.0+$/.test(l) && l.includes(','))).toBe(false);
    expect(labels(many!.svg)).toContain('2,000');
  });

  it('draw the checkpoint\'s bar in its verdict\'s colour: green on a pass, red on a fail, amber otherwise', () => {
    const colourOf = (tone?: 'pass' | 'fail' | 'neutral') => {
      const spec = barChartSpec('b', 'b', [{ label: 'ref', value: 0.2 }, { label: 'me', value: 0.5, highlight: true, ...(tone ? { tone } : {}) }], { xTitle: 'x', maxValue: 1 });
      return ((spec.spec.layer as any[])[0].encoding.color.scale.range as string[])[0];
    };
    expect(colourOf('pass')).toBe('#59a14f');
    expect(colourOf('fail')).toBe('#e15759');
    expect(colourOf('neutral')).toBe('#f28e2b');
    expect(new Set([colourOf('pass'), colourOf('fail'), colourOf('neutral')]).size).toBe(3);
  });

  it.skipIf(!browserAvailable)('show no text outside the drawing in a real browser', async () => {
    const rendered = await renderCharts([bars, trend]);
    const file = path.join(tempDir(), 'charts.html');
    writeFileSync(file, `<!doctype html><meta charset="utf-8"><body style="margin:0">${rendered.map((c) => `<div>${c.svg}</div>`).join('')}</body>`);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(pathToFileURL(file).href);
      const outside = await page.evaluate(`(() => {
        const bad = [];
        for (const svg of document.querySelectorAll('svg')) {
          const box = svg.getBoundingClientRect();
          for (const t of svg.querySelectorAll('text')) {
            const r = t.getBoundingClientRect();
            if (!t.textContent) continue;
            if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) bad.push(t.textContent);
          }
        }
        return bad;
      })()`);
      expect(outside).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
