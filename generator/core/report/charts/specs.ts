/**
 * Report charts as Vega-Lite specs: pure data → spec, written beside each report so users can
 * restyle them, and rendered to SVG in Node by render.ts (no browser). Rules every chart keeps:
 * value axes start at 0 or state their range in the caption, labels are never truncated
 * (labelLimit 0; long category labels go on a horizontal bar's y axis, where they have room),
 * and captions say only what the chart shows (an interval band is mentioned only when drawn).
 */
export type VlSpec = Record<string, unknown>;

export interface ChartSpec {
  /** File stem for the spec and the rendered SVG (`<name>.vl.json`, `<name>.svg`). */
  name: string;
  title: string;
  /** One or two sentences under the chart, true of what is drawn. */
  caption: string;
  spec: VlSpec;
}

const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';
const BASE = '#4e79a7';
const ACCENT = '#e15759';
const REFERENCE = '#9c755f';

const CONFIG = {
  font: 'DejaVu Sans, Verdana, sans-serif',
  axis: { labelLimit: 0, titleFontWeight: 'normal', labelFontSize: 11, titleFontSize: 12 },
  legend: { labelLimit: 0 },
  title: { anchor: 'start', fontSize: 14 },
  view: { stroke: null },
};

export interface BarRow {
  label: string;
  value: number;
  low?: number;
  high?: number;
  /** The checkpoint under test, drawn in its verdict's colour (`tone`; red when absent). */
  highlight?: boolean;
  /** The checkpoint's verdict: green for pass, red for fail, amber for anything unproven or unchecked. */
  tone?: BarTone;
}

export type BarTone = 'pass' | 'fail' | 'neutral';
const TONES: Record<BarTone, string> = { pass: '#59a14f', fail: ACCENT, neutral: '#f28e2b' };

/** A value domain from 0 (or the data's minimum when negative) to at least `floorMax`. */
function domainFor(values: number[], floorMax: number): [number, number] {
  const finite = values.filter(Number.isFinite);
  const lo = Math.min(0, ...finite);
  const hi = Math.max(floorMax, ...finite);
  return [lo, hi];
}

/**
 * Horizontal bars (one row per label, so long model names are never clipped) with interval
 * whiskers and an optional threshold rule.
 */
export function barChartSpec(name: string, title: string, rows: BarRow[], o: { xTitle: string; threshold?: number; thresholdLabel?: string; maxValue?: number }): ChartSpec {
  const withIntervals = rows.some((r) => r.low !== undefined && r.high !== undefined);
  const domain = domainFor(rows.flatMap((r) => [r.value, r.low ?? r.value, r.high ?? r.value, ...(o.threshold !== undefined ? [o.threshold] : [])]), o.maxValue ?? 0);
  const data = rows.map((r, i) => ({ order: i, label: r.label, value: r.value, low: r.low ?? null, high: r.high ?? null, role: r.highlight ? 'checkpoint' : 'reference' }));
  const checkpointColour = TONES[rows.find((r) => r.highlight)?.tone ?? 'fail'];
  const y = { field: 'label', type: 'nominal', sort: { field: 'order', op: 'min' }, title: null };
  const layers: VlSpec[] = [
    {
      mark: { type: 'bar', height: { band: 0.7 } },
      encoding: {
        y,
        x: { field: 'value', type: 'quantitative', title: o.xTitle, scale: { domain, nice: false, zero: true } },
        color: { field: 'role', type: 'nominal', scale: { domain: ['checkpoint', 'reference'], range: [checkpointColour, BASE] }, legend: null },
        tooltip: [{ field: 'label' }, { field: 'value', format: '.3f' }, ...(withIntervals ? [{ field: 'low', format: '.3f' }, { field: 'high', format: '.3f' }] : [])],
      },
    },
  ];
  if (withIntervals) {
    layers.push({
      transform: [{ filter: 'datum.low !== null && datum.high !== null' }],
      mark: { type: 'rule', color: '#222', strokeWidth: 1.5 },
      encoding: { y, x: { field: 'low', type: 'quantitative' }, x2: { field: 'high' } },
    });
  }
  if (o.threshold !== undefined) {
    layers.push({
      data: { values: [{ threshold: o.threshold, text: `${o.thresholdLabel ?? 'threshold'} ${o.threshold}` }] },
      layer: [
        { mark: { type: 'rule', color: ACCENT, strokeDash: [6, 4], strokeWidth: 1.5 }, encoding: { x: { field: 'threshold', type: 'quantitative' } } },
        // The label sits above the plot (y = 0 px), never on top of a bar.
        { mark: { type: 'text', color: ACCENT, align: 'left', dx: 4, dy: -8, baseline: 'bottom', y: 0 }, encoding: { x: { field: 'threshold', type: 'quantitative' }, text: { field: 'text' } } },
      ],
    });
  }
  const spec: VlSpec = {
    $schema: SCHEMA,
    title,
    width: 520,
    height: { step: 26 },
    padding: { top: 18, left: 5, right: 24, bottom: 5 },
    data: { values: data },
    layer: layers,
    config: CONFIG,
  };
  const caption = [
    `Bars from 0 to ${formatDomain(domain[1])}.`,
    withIntervals ? 'Whiskers are the prediction intervals.' : 'No intervals are drawn.',
    o.threshold !== undefined ? `The dashed line is the threshold (${o.threshold}).` : '',
  ].filter(Boolean).join(' ');
  return { name, title, caption, spec };
}

export interface TrendRow {
  x: number;
  label: string;
  value: number;
  low?: number;
  high?: number;
  highlight?: boolean;
}

export interface ReferenceBand {
  label: string;
  value: number;
}

/**
 * Predicted score along training (steps or tokens): a line with the interval as a band where
 * intervals exist, reference models as horizontal rules, an optional threshold. The y axis
 * runs from 0 to at least `maxValue` so a two-point wobble does not look like a cliff.
 */
export function trendChartSpec(name: string, title: string, rows: TrendRow[], o: { xTitle: string; yTitle: string; maxValue: number; threshold?: number; references?: ReferenceBand[]; /** What a highlighted (red) point means, for the caption. */ highlightMeaning?: string }): ChartSpec {
  const sorted = [...rows].sort((a, b) => a.x - b.x || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  const banded = sorted.filter((r) => r.low !== undefined && r.high !== undefined);
  const refs = o.references ?? [];
  const domain = domainFor([...sorted.flatMap((r) => [r.value, r.low ?? r.value, r.high ?? r.value]), ...refs.map((r) => r.value), ...(o.threshold !== undefined ? [o.threshold] : [])], o.maxValue);
  const yScale = { domain, nice: false, zero: true };
  // Padding keeps the first and last points off the plot's edges.
  // Steps and tokens are whole numbers: no fractional ticks, and no "2,500.000000" for a single point.
  const x = { field: 'x', type: 'quantitative', title: o.xTitle, scale: { zero: false, padding: 16 }, axis: { format: ',~f', tickMinStep: 1 } };
  const data = sorted.map((r) => ({ x: r.x, label: r.label, value: r.value, low: r.low ?? null, high: r.high ?? null, role: r.highlight ? 'checkpoint' : 'history' }));
  const layers: VlSpec[] = [];
  if (banded.length > 1) {
    layers.push({
      transform: [{ filter: 'datum.low !== null && datum.high !== null' }],
      mark: { type: 'area', color: BASE, opacity: 0.15 },
      encoding: { x, y: { field: 'low', type: 'quantitative', scale: yScale, title: o.yTitle }, y2: { field: 'high' } },
    });
  }
  layers.push({ mark: { type: 'line', color: BASE, point: false }, encoding: { x, y: { field: 'value', type: 'quantitative', scale: yScale, title: o.yTitle } } });
  layers.push({
    mark: { type: 'point', filled: true, size: 60 },
    encoding: {
      x,
      y: { field: 'value', type: 'quantitative', scale: yScale },
      color: { field: 'role', type: 'nominal', scale: { domain: ['checkpoint', 'history'], range: [ACCENT, BASE] }, legend: null },
      tooltip: [{ field: 'label' }, { field: 'x' }, { field: 'value', format: '.3f' }, { field: 'low', format: '.3f' }, { field: 'high', format: '.3f' }],
    },
  });
  const labelled = labelledReferences(refs, domain);
  if (refs.length) {
    layers.push({
      data: { values: refs.map((r) => ({ label: r.label, value: r.value, shown: labelled.has(r) ? r.label : '' })) },
      layer: [
        { mark: { type: 'rule', color: REFERENCE, strokeDash: [2, 3] }, encoding: { y: { field: 'value', type: 'quantitative', scale: yScale } } },
        // Labels sit right of the plot (vega's autosize pads the view for them), never over the data.
        { mark: { type: 'text', color: REFERENCE, align: 'left', baseline: 'middle', dx: 4, x: 'width' }, encoding: { y: { field: 'value', type: 'quantitative', scale: yScale }, text: { field: 'shown' } } },
      ],
    });
  }
  if (o.threshold !== undefined) {
    layers.push({
      data: { values: [{ threshold: o.threshold }] },
      mark: { type: 'rule', color: ACCENT, strokeDash: [6, 4], strokeWidth: 1.5 },
      encoding: { y: { field: 'threshold', type: 'quantitative', scale: yScale } },
    });
  }
  const spec: VlSpec = { $schema: SCHEMA, title, width: 640, height: 280, padding: 10, data: { values: data }, layer: layers, config: CONFIG };
  const caption = [
    `y axis from ${formatDomain(domain[0])} to ${formatDomain(domain[1])}.`,
    banded.length > 1 ? 'The shaded band is the prediction interval.' : 'No intervals are drawn.',
    refs.length ? `Dotted lines are the reference models' known scores${labelled.size < refs.length ? ` (${labelled.size} of ${refs.length} labelled where labels would overlap; the table lists all)` : ''}.` : '',
    o.threshold !== undefined ? `The dashed line is the threshold (${o.threshold}).` : '',
    o.highlightMeaning && sorted.some((r) => r.highlight) ? `Red points: ${o.highlightMeaning}.` : '',
  ].filter(Boolean).join(' ');
  return { name, title, caption, spec };
}

/**
 * Reference rules whose label gets drawn: from the highest score down, a label is kept only when
 * it sits at least 6% of the axis (17 px of the 280 px plot) below the previous kept one, so labels never overprint.
 */
function labelledReferences(refs: ReferenceBand[], domain: [number, number]): Set<ReferenceBand> {
  const gap = 0.06 * (domain[1] - domain[0] || 1);
  const kept = new Set<ReferenceBand>();
  let last = Infinity;
  for (const r of [...refs].sort((a, b) => b.value - a.value || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))) {
    if (last - r.value >= gap) {
      kept.add(r);
      last = r.value;
    }
  }
  return kept;
}

export interface GroupedSeries {
  name: string;
  values: number[];
}

/**
 * Horizontal grouped bars: one row group per category (labels on the y axis, never clipped),
 * one bar per series, a legend under the chart.
 */
export function groupedBarChartSpec(name: string, title: string, categories: string[], series: GroupedSeries[], o: { xTitle: string; maxValue?: number }): ChartSpec {
  const data = categories.flatMap((c, i) => series.map((s, k) => ({ order: i, category: c, series: s.name, seriesOrder: k, value: s.values[i] ?? 0 })));
  const domain = domainFor(data.map((d) => d.value), o.maxValue ?? 0);
  const palette = [BASE, '#f28e2b', '#59a14f', '#b07aa1'];
  const spec: VlSpec = {
    $schema: SCHEMA,
    title,
    width: 520,
    height: { step: 14 },
    padding: { top: 10, left: 5, right: 24, bottom: 5 },
    data: { values: data },
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'category', type: 'nominal', sort: { field: 'order', op: 'min' }, title: null },
      yOffset: { field: 'series', type: 'nominal', sort: series.map((s) => s.name) },
      x: { field: 'value', type: 'quantitative', title: o.xTitle, scale: { domain, nice: false, zero: true } },
      color: { field: 'series', type: 'nominal', title: null, sort: series.map((s) => s.name), scale: { domain: series.map((s) => s.name), range: palette.slice(0, series.length) }, legend: { orient: 'bottom', direction: 'horizontal' } },
      tooltip: [{ field: 'category' }, { field: 'series' }, { field: 'value', format: '.3f' }],
    },
    config: CONFIG,
  };
  return { name, title, caption: `Bars from 0 to ${formatDomain(domain[1])}; one bar per ${series.map((s) => s.name).join(' / ')}.`, spec };
}

/** A file stem from free text (a target name): lower-case letters, digits and dashes, never empty. */
export function chartSlug(text: string): string {
  const slug = text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
  return slug || 'chart';
}

function formatDomain(v: number): string {
  return String(Math.round(v * 1000) / 1000);
}
