/**
 * A report page with its charts: the Vega-Lite specs become `charts/<name>.vl.json` files beside
 * the report (users restyle them and re-render with any Vega tool) and inline SVG in the HTML.
 */
import { renderCharts, specFile } from './charts/render.js';
import { chartSpecPath, renderReportHtml, type ReportPage } from './html.js';

/**
 * Element ids inside one chart's SVG (clip paths, gradients) prefixed with the chart's name, so two
 * charts inlined in one page never resolve `url(#clip1)` to each other's definitions.
 */
function scopeIds(svg: string, scope: string): string {
  const ids = [...svg.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
  let out = svg;
  for (const id of new Set(ids)) {
    const scoped = `${scope}-${id}`;
    out = out.split(`id="${id}"`).join(`id="${scoped}"`).split(`url(#${id})`).join(`url(#${scoped})`).split(`href="#${id}"`).join(`href="#${scoped}"`);
  }
  return out;
}

export async function renderPageFiles(page: ReportPage): Promise<{ html: string; files: Record<string, string> }> {
  const charts = page.sections.flatMap((s) => s.charts ?? []);
  const names = new Set<string>();
  for (const c of charts) {
    // Chart names are built by the page code from indices and slugs; a clash is a programming error.
    if (names.has(c.name)) throw new Error(`two charts named ${c.name}`);
    names.add(c.name);
  }
  const rendered = await renderCharts(charts);
  const svgs = new Map(rendered.map((c) => [c.name, scopeIds(c.svg, `chart-${c.name}`)]));
  const files = Object.fromEntries(charts.map((c) => [chartSpecPath(c), specFile(c)]));
  return { html: renderReportHtml(page, svgs), files };
}
