/**
 * Renders Vega-Lite specs to SVG in Node (vega's headless SVG renderer; no browser, no
 * canvas). vega and vega-lite are imported lazily: only commands that draw charts load them.
 */
import type { ChartSpec } from './specs.js';

export interface RenderedChart extends ChartSpec {
  svg: string;
}

export async function renderCharts(charts: readonly ChartSpec[]): Promise<RenderedChart[]> {
  if (charts.length === 0) return [];
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const out: RenderedChart[] = [];
  for (const chart of charts) {
    const compiled = vegaLite.compile(chart.spec as any).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Error });
    const svg = await view.toSVG();
    view.finalize();
    out.push({ ...chart, svg });
  }
  return out;
}

/** The spec as written beside a report: stable key order, so reruns give the same bytes. */
export function specFile(chart: ChartSpec): string {
  return `${JSON.stringify(chart.spec, null, 2)}\n`;
}
