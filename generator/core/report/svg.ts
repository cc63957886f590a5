/**
 * Dependency-free SVG charts for reports. Pure functions of their data: the same input
 * gives the same bytes (fixed number formatting, no ids from counters or clocks).
 */
export interface ChartFrame {
  title: string;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
}

export interface BarDatum {
  label: string;
  value: number;
  /** Interval drawn as a whisker (e.g. a bootstrap interval). */
  low?: number;
  high?: number;
  /** Drawn in the accent colour (e.g. the checkpoint under test). */
  highlight?: boolean;
}

export interface Point {
  x: number;
  y: number;
  label?: string;
  highlight?: boolean;
}

export interface Series {
  name: string;
  points: Array<{ x: number; y: number }>;
}

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#9c755f'];
const ACCENT = '#e15759';
const BASE = '#4e79a7';
const MARGIN = { top: 36, right: 20, bottom: 56, left: 64 };

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return '0';
  const r = Math.round(n * 100) / 100;
  return Object.is(r, -0) ? '0' : String(r);
}

/** "Nice" tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  // Integer multiples of the step, cleaned of binary noise (0.6000000000000001 → 0.6).
  const clean = (k: number) => Number((k * step).toPrecision(12));
  let k = Math.floor(lo / step);
  for (; clean(k) <= hi + step * 1e-9; k++) ticks.push(clean(k));
  if (ticks[ticks.length - 1]! < hi) ticks.push(clean(k));
  return ticks;
}

function formatTick(t: number): string {
  const abs = Math.abs(t);
  if (abs !== 0 && (abs < 0.01 || abs >= 1e5)) return t.toExponential(1);
  return String(Math.round(t * 1000) / 1000);
}

interface Scale {
  (v: number): number;
  ticks: number[];
}

function linearScale(lo: number, hi: number, from: number, to: number): Scale {
  const ticks = niceTicks(lo, hi);
  const d0 = ticks[0]!;
  const d1 = ticks[ticks.length - 1]!;
  const scale = ((v: number) => from + ((v - d0) / (d1 - d0 || 1)) * (to - from)) as Scale;
  scale.ticks = ticks;
  return scale;
}

function frame(f: ChartFrame, body: string[], x: Scale | null, y: Scale, w: number, h: number): string {
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${escapeXml(f.title)}" font-family="system-ui, sans-serif" font-size="11">`);
  parts.push(`<title>${escapeXml(f.title)}</title>`);
  parts.push(`<rect width="${w}" height="${h}" fill="#ffffff"/>`);
  parts.push(`<text x="${w / 2}" y="20" text-anchor="middle" font-size="14" font-weight="600">${escapeXml(f.title)}</text>`);
  for (const t of y.ticks) {
    const py = fmt(y(t));
    parts.push(`<line x1="${MARGIN.left}" x2="${w - MARGIN.right}" y1="${py}" y2="${py}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${py}" text-anchor="end" dominant-baseline="middle" fill="#555">${formatTick(t)}</text>`);
  }
  if (x) {
    for (const t of x.ticks) {
      const px = fmt(x(t));
      parts.push(`<line x1="${px}" x2="${px}" y1="${MARGIN.top}" y2="${h - MARGIN.bottom}" stroke="#f0f0f0"/>`);
      parts.push(`<text x="${px}" y="${h - MARGIN.bottom + 16}" text-anchor="middle" fill="#555">${formatTick(t)}</text>`);
    }
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${h - MARGIN.bottom}" stroke="#333"/>`);
  parts.push(`<line x1="${MARGIN.left}" x2="${w - MARGIN.right}" y1="${h - MARGIN.bottom}" y2="${h - MARGIN.bottom}" stroke="#333"/>`);
  if (f.xLabel) parts.push(`<text x="${(MARGIN.left + w - MARGIN.right) / 2}" y="${h - 8}" text-anchor="middle" fill="#333">${escapeXml(f.xLabel)}</text>`);
  if (f.yLabel) parts.push(`<text transform="translate(14 ${(MARGIN.top + h - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(f.yLabel)}</text>`);
  parts.push(...body);
  parts.push('</svg>');
  return parts.join('\n');
}

/** Vertical bars with optional interval whiskers and a dashed threshold line. */
export function barChartSvg(data: BarDatum[], f: ChartFrame & { threshold?: number; thresholdLabel?: string; domain?: [number, number] }): string {
  const w = f.width ?? Math.max(360, 90 + data.length * 48);
  const h = f.height ?? 300;
  const values = data.flatMap((d) => [d.value, d.low ?? d.value, d.high ?? d.value]);
  if (f.threshold !== undefined) values.push(f.threshold);
  const [lo, hi] = f.domain ?? [Math.min(0, ...values), Math.max(...values, 0)];
  const y = linearScale(lo, hi, h - MARGIN.bottom, MARGIN.top);
  const band = (w - MARGIN.left - MARGIN.right) / Math.max(1, data.length);
  const zero = barBaseline(y);
  const body: string[] = [];
  data.forEach((d, i) => {
    const x0 = MARGIN.left + i * band + band * 0.15;
    const bw = band * 0.7;
    const barTop = Math.min(y(d.value), zero);
    const barHeight = Math.abs(y(d.value) - zero);
    body.push(`<rect x="${fmt(x0)}" y="${fmt(barTop)}" width="${fmt(bw)}" height="${fmt(barHeight)}" fill="${d.highlight ? ACCENT : BASE}"><title>${escapeXml(`${d.label}: ${fmt(d.value)}${d.low !== undefined ? ` [${fmt(d.low)}, ${fmt(d.high ?? d.value)}]` : ''}`)}</title></rect>`);
    if (d.low !== undefined && d.high !== undefined) {
      const cx = fmt(x0 + bw / 2);
      body.push(`<line x1="${cx}" x2="${cx}" y1="${fmt(y(d.low))}" y2="${fmt(y(d.high))}" stroke="#222" stroke-width="1.5"/>`);
      for (const v of [d.low, d.high]) body.push(`<line x1="${fmt(x0 + bw * 0.3)}" x2="${fmt(x0 + bw * 0.7)}" y1="${fmt(y(v))}" y2="${fmt(y(v))}" stroke="#222" stroke-width="1.5"/>`);
    }
    body.push(`<text transform="translate(${fmt(x0 + bw / 2)} ${h - MARGIN.bottom + 12}) rotate(30)" font-size="10" fill="#333">${escapeXml(truncateLabel(d.label))}</text>`);
  });
  if (f.threshold !== undefined) {
    const ty = fmt(y(f.threshold));
    body.push(`<line x1="${MARGIN.left}" x2="${w - MARGIN.right}" y1="${ty}" y2="${ty}" stroke="${ACCENT}" stroke-dasharray="6 4" stroke-width="1.5"/>`);
    body.push(`<text x="${w - MARGIN.right}" y="${Number(ty) - 4}" text-anchor="end" fill="${ACCENT}">${escapeXml(f.thresholdLabel ?? 'threshold')} ${formatTick(f.threshold)}</text>`);
  }
  return frame(f, body, null, y, w, h);
}

/** Scatter with an optional y = x diagonal (predicted vs actual). */
export function scatterSvg(points: Point[], f: ChartFrame & { diagonal?: boolean }): string {
  const w = f.width ?? 420;
  const h = f.height ?? 360;
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const all = f.diagonal ? [...xs, ...ys] : xs;
  const x = linearScale(Math.min(...all), Math.max(...all), MARGIN.left, w - MARGIN.right);
  const y = f.diagonal ? linearScale(Math.min(...all), Math.max(...all), h - MARGIN.bottom, MARGIN.top) : linearScale(Math.min(...ys), Math.max(...ys), h - MARGIN.bottom, MARGIN.top);
  const body: string[] = [];
  if (f.diagonal) {
    const lo = Math.max(x.ticks[0]!, y.ticks[0]!);
    const hi = Math.min(x.ticks[x.ticks.length - 1]!, y.ticks[y.ticks.length - 1]!);
    body.push(`<line x1="${fmt(x(lo))}" y1="${fmt(y(lo))}" x2="${fmt(x(hi))}" y2="${fmt(y(hi))}" stroke="#999" stroke-dasharray="4 4"/>`);
  }
  for (const p of points) {
    body.push(`<circle cx="${fmt(x(p.x))}" cy="${fmt(y(p.y))}" r="${p.highlight ? 6 : 4}" fill="${p.highlight ? ACCENT : BASE}" fill-opacity="0.85"><title>${escapeXml(`${p.label ?? ''} (${fmt(p.x)}, ${fmt(p.y)})`)}</title></circle>`);
    if (p.label && points.length <= 30) body.push(`<text x="${fmt(x(p.x) + 6)}" y="${fmt(y(p.y) - 6)}" font-size="9" fill="#444">${escapeXml(truncateLabel(p.label))}</text>`);
  }
  return frame(f, body, x, y, w, h);
}

/** One polyline per series with a legend (e.g. a budget curve). */
export function lineChartSvg(series: Series[], f: ChartFrame): string {
  const w = f.width ?? 480;
  const h = f.height ?? 320;
  const pts = series.flatMap((s) => s.points);
  const x = linearScale(Math.min(...pts.map((p) => p.x)), Math.max(...pts.map((p) => p.x)), MARGIN.left, w - MARGIN.right - 110);
  const y = linearScale(Math.min(...pts.map((p) => p.y)), Math.max(...pts.map((p) => p.y)), h - MARGIN.bottom, MARGIN.top);
  const body: string[] = [];
  series.forEach((s, i) => {
    const colour = PALETTE[i % PALETTE.length]!;
    const sorted = [...s.points].sort((a, b) => a.x - b.x);
    body.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${sorted.map((p) => `${fmt(x(p.x))},${fmt(y(p.y))}`).join(' ')}"/>`);
    for (const p of sorted) body.push(`<circle cx="${fmt(x(p.x))}" cy="${fmt(y(p.y))}" r="3" fill="${colour}"><title>${escapeXml(`${s.name}: (${fmt(p.x)}, ${fmt(p.y)})`)}</title></circle>`);
  });
  body.push(...legend(series.map((s) => s.name), w));
  return frame(f, body, x, y, w, h);
}

export interface GroupedSeries {
  name: string;
  /** One value per category, in category order. */
  values: number[];
}

/** Side-by-side bars per category (e.g. instance share and weight share per benchmark), with a legend. */
export function groupedBarChartSvg(categories: string[], series: GroupedSeries[], f: ChartFrame & { domain?: [number, number] }): string {
  const w = f.width ?? Math.max(420, 200 + categories.length * (24 + 18 * series.length));
  const h = f.height ?? 300;
  const values = series.flatMap((s) => s.values);
  const [lo, hi] = f.domain ?? [Math.min(0, ...values), Math.max(0, ...values)];
  const plotRight = w - MARGIN.right - 110;
  const y = linearScale(lo, hi, h - MARGIN.bottom, MARGIN.top);
  const zero = barBaseline(y);
  const band = (plotRight - MARGIN.left) / Math.max(1, categories.length);
  const barWidth = (band * 0.8) / Math.max(1, series.length);
  const body: string[] = [];
  categories.forEach((category, i) => {
    const x0 = MARGIN.left + i * band + band * 0.1;
    series.forEach((s, j) => {
      const v = s.values[i] ?? 0;
      const colour = PALETTE[j % PALETTE.length]!;
      body.push(`<rect x="${fmt(x0 + j * barWidth)}" y="${fmt(Math.min(y(v), zero))}" width="${fmt(barWidth)}" height="${fmt(Math.abs(y(v) - zero))}" fill="${colour}"><title>${escapeXml(`${category} · ${s.name}: ${fmt(v)}`)}</title></rect>`);
    });
    body.push(`<text transform="translate(${fmt(x0 + band * 0.4)} ${h - MARGIN.bottom + 12}) rotate(30)" font-size="10" fill="#333">${escapeXml(truncateLabel(category))}</text>`);
  });
  body.push(...legend(series.map((s) => s.name), w));
  return frame(f, body, null, y, w, h);
}

export interface TrendPoint {
  /** Position on the x axis (a training step, or the checkpoint's index in history order). */
  x: number;
  y: number;
  low?: number;
  high?: number;
  /** Shown under the point (the checkpoint name). */
  label: string;
  highlight?: boolean;
}

/**
 * One value per checkpoint joined by a line, its interval as a shaded band and whiskers, an
 * optional threshold line; points are labelled with their checkpoint name.
 */
export function trendChartSvg(points: TrendPoint[], f: ChartFrame & { threshold?: number; thresholdLabel?: string }): string {
  const sorted = [...points].sort((a, b) => a.x - b.x || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  // Wide enough to separate a few points, never wider than the report page.
  const w = f.width ?? Math.min(1060, Math.max(480, 120 + sorted.length * 40));
  const h = f.height ?? 320;
  const values = sorted.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y]);
  if (f.threshold !== undefined) values.push(f.threshold);
  const y = linearScale(Math.min(...values), Math.max(...values), h - MARGIN.bottom, MARGIN.top);
  const xs = sorted.map((p) => p.x);
  const xLo = Math.min(...xs);
  const xHi = Math.max(...xs);
  const left = MARGIN.left + 24;
  const right = w - MARGIN.right - 24;
  const px = (x: number) => (xHi > xLo ? left + ((x - xLo) / (xHi - xLo)) * (right - left) : (left + right) / 2);
  const body: string[] = [];
  const banded = sorted.filter((p) => p.low !== undefined && p.high !== undefined);
  if (banded.length > 1) {
    const upper = banded.map((p) => `${fmt(px(p.x))},${fmt(y(p.high!))}`);
    const lower = [...banded].reverse().map((p) => `${fmt(px(p.x))},${fmt(y(p.low!))}`);
    body.push(`<polygon points="${[...upper, ...lower].join(' ')}" fill="${BASE}" fill-opacity="0.15" stroke="none"/>`);
  }
  if (f.threshold !== undefined) {
    const ty = fmt(y(f.threshold));
    body.push(`<line x1="${MARGIN.left}" x2="${w - MARGIN.right}" y1="${ty}" y2="${ty}" stroke="${ACCENT}" stroke-dasharray="6 4" stroke-width="1.5"/>`);
    body.push(`<text x="${w - MARGIN.right}" y="${Number(ty) - 4}" text-anchor="end" fill="${ACCENT}">${escapeXml(f.thresholdLabel ?? 'threshold')} ${formatTick(f.threshold)}</text>`);
  }
  if (sorted.length > 1) body.push(`<polyline fill="none" stroke="${BASE}" stroke-width="2" points="${sorted.map((p) => `${fmt(px(p.x))},${fmt(y(p.y))}`).join(' ')}"/>`);
  // Label at most ~20 points so names stay readable on long histories; the current one always.
  const every = Math.max(1, Math.ceil(sorted.length / 20));
  sorted.forEach((p, i) => {
    const cx = fmt(px(p.x));
    if (p.low !== undefined && p.high !== undefined) body.push(`<line x1="${cx}" x2="${cx}" y1="${fmt(y(p.low))}" y2="${fmt(y(p.high))}" stroke="#555" stroke-width="1"/>`);
    const interval = p.low !== undefined && p.high !== undefined ? ` [${fmt(p.low)}, ${fmt(p.high)}]` : '';
    body.push(`<circle cx="${cx}" cy="${fmt(y(p.y))}" r="${p.highlight ? 6 : 4}" fill="${p.highlight ? ACCENT : BASE}"><title>${escapeXml(`${p.label}: ${fmt(p.y)}${interval}`)}</title></circle>`);
    if (p.highlight || i % every === 0) body.push(`<text transform="translate(${cx} ${h - MARGIN.bottom + 12}) rotate(30)" font-size="10" fill="${p.highlight ? ACCENT : '#333'}">${escapeXml(truncateLabel(p.label))}</text>`);
  });
  return frame(f, body, null, y, w, h);
}

/** Bars grow from zero when zero is in the domain, else from the nearest domain edge. */
function barBaseline(y: Scale): number {
  const d0 = y.ticks[0]!;
  const d1 = y.ticks[y.ticks.length - 1]!;
  return y(Math.min(Math.max(0, d0), d1));
}

/** A colour key in the right margin, one row per series in palette order. */
function legend(names: string[], width: number): string[] {
  return names.flatMap((name, i) => {
    const ly = MARGIN.top + 10 + i * 16;
    return [
      `<rect x="${width - MARGIN.right - 100}" y="${ly - 8}" width="10" height="10" fill="${PALETTE[i % PALETTE.length]!}"/>`,
      `<text x="${width - MARGIN.right - 86}" y="${ly}" fill="#333">${escapeXml(truncateLabel(name, 16))}</text>`,
    ];
  });
}

function truncateLabel(label: string, max = 22): string {
  return label.length > max ? `${label.slice(0, max - 1)}…` : label;
}
