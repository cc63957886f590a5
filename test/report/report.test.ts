import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { barChartSpec, groupedBarChartSpec, trendChartSpec } from '../../generator/core/report/charts/specs.js';
import { renderCharts } from '../../generator/core/report/charts/render.js';
import { renderReportHtml, renderReportMarkdown } from '../../generator/core/report/html.js';
import { hasPython, inCi, python } from '../helpers/env.js';

const hostile = '</text><script>alert(1)</script>&';

describe('charts in a report page', () => {
  it('escape hostile labels (vega’s SVG renderer) and are deterministic', async () => {
    const make = () => barChartSpec('hostile', hostile, [{ label: hostile, value: 0.3, low: 0.2, high: 0.45, highlight: true }, { label: 'x', value: 0.1 }], { xTitle: 'score', threshold: 0.25 });
    const [a] = await renderCharts([make()]);
    const [b] = await renderCharts([make()]);
    expect(a!.svg).toBe(b!.svg);
    expect(a!.svg).not.toContain('<script>');
    expect(a!.svg).toContain('&lt;script&gt;');
  });

  it.skipIf(!hasPython && !inCi)('produce well-formed XML (checked by a real XML parser)', async () => {
    const rendered = await renderCharts([
      barChartSpec('b', 'bars', [{ label: hostile, value: 0.3, low: 0.2, high: 0.45, highlight: true }, { label: 'x', value: -0.1 }], { xTitle: 'score', threshold: 0.25 }),
      groupedBarChartSpec('g', 'g', ['a', hostile], [{ name: 's1', values: [0.1, 0.2] }, { name: 's2', values: [0.3, 0.4] }], { xTitle: 'share', maxValue: 1 }),
      trendChartSpec('t', 'trend', [{ x: 1, value: 0.2, label: hostile }, { x: 2, value: 0.3, low: 0.1, high: 0.5, label: 'b' }], { xTitle: 'step', yTitle: 'y', maxValue: 1, references: [{ label: hostile, value: 0.5 }] }),
    ]);
    const script = 'import sys,json,xml.etree.ElementTree as ET\nfor s in json.load(sys.stdin): ET.fromstring(s)\nprint("ok")';
    const res = spawnSync(python, ['-c', script], { input: JSON.stringify(rendered.map((r) => r.svg)), encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(res.stdout.trim()).toBe('ok');
  });
});

describe('report page', () => {
  const page = {
    title: 'Checkpoint step-1000',
    verdict: { ok: false, text: 'swe-bench 0.21 < 0.30' },
    sections: [{ heading: 'Predictions', table: { columns: ['target', 'score'], rows: [['swe-bench', 0.2134], [hostile, null]], emphasise: [0] } }],
    footer: [['model file', 'fit/model.json'] as [string, string]],
  };
  it('is self-contained and escapes text', () => {
    const html = renderReportHtml(page);
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html).toContain('class="verdict fail"');
    expect(html).toContain('<tr class="em"><td>swe-bench</td><td>0.213</td></tr>');
    expect(html).toContain('&lt;/text&gt;&lt;script&gt;');
  });
  it('renders the same content as Markdown', () => {
    const md = renderReportMarkdown(page);
    expect(md).toContain('**FAIL** — swe-bench 0.21 < 0.30');
    expect(md).toContain('| swe-bench | 0.213 |');
  });
});
