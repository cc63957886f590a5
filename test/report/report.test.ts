import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { barChartSvg, lineChartSvg, niceTicks, scatterSvg } from '../../generator/core/report/svg.js';
import { renderReportHtml, renderReportMarkdown } from '../../generator/core/report/html.js';
import { hasPython, inCi, python } from '../helpers/env.js';

const hostile = '</text><script>alert(1)</script>&';

describe('svg charts', () => {
  it('draws bars to scale from zero (hand-computed geometry)', () => {
    const svg = barChartSvg([{ label: 'a', value: 0.5 }, { label: 'b', value: 1 }], { title: 't', domain: [0, 1], height: 300, width: 400 });
    // plot height = 300 - 36 (top) - 56 (bottom) = 208; ticks 0..1 → 0.5 maps to 104 px, 1 to 208 px.
    const heights = [...svg.matchAll(/<rect x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill/g)].map((m) => Number(m[2]));
    expect(heights).toEqual([104, 208]);
  });

  it('picks readable ticks', () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(3, 97)).toEqual([0, 20, 40, 60, 80, 100]);
  });

  it('escapes labels and is deterministic', () => {
    const make = () => scatterSvg([{ x: 0.1, y: 0.2, label: hostile }, { x: 0.5, y: 0.4 }], { title: hostile, diagonal: true });
    const a = make();
    expect(a).toBe(make());
    expect(a).not.toContain('<script>');
    expect(a).toContain('&lt;script&gt;');
  });

  it.skipIf(!hasPython && !inCi)('produces well-formed XML (checked by a real XML parser)', () => {
    const svgs = [
      barChartSvg([{ label: hostile, value: 0.3, low: 0.2, high: 0.45, highlight: true }, { label: 'x', value: -0.1 }], { title: 'bars', threshold: 0.25, yLabel: 'score' }),
      scatterSvg([{ x: 1, y: 2, label: 'm' }, { x: 3, y: 2.5 }], { title: 's', xLabel: 'x', yLabel: 'y', diagonal: true }),
      lineChartSvg([{ name: 'PACE', points: [{ x: 25, y: 0.1 }, { x: 100, y: 0.05 }] }, { name: 'random', points: [{ x: 25, y: 0.2 }, { x: 100, y: 0.12 }] }], { title: 'budget' }),
    ];
    const script = 'import sys,json,xml.etree.ElementTree as ET\nfor s in json.load(sys.stdin): ET.fromstring(s)\nprint("ok")';
    const res = spawnSync(python, ['-c', script], { input: JSON.stringify(svgs), encoding: 'utf8' });
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
