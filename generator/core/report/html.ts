import { createHash } from 'node:crypto';
import type { ChartSpec } from './charts/specs.js';

/** Text as XML/HTML character data or attribute value. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Where a chart's Vega-Lite spec is written, relative to the report. */
export const chartSpecPath = (chart: Pick<ChartSpec, 'name'>) => `charts/${chart.name}.vl.json`;

export interface ReportTable {
  columns: string[];
  rows: Array<Array<string | number | null>>;
  /** Index of rows to emphasise (e.g. the checkpoint under test, a failed threshold). */
  emphasise?: number[];
}

export interface ReportSection {
  heading: string;
  text?: string;
  /** Vega-Lite charts; rendered to inline SVG by page-files.ts (labels escaped by vega's SVG renderer). */
  charts?: ChartSpec[];
  /** Bullet points (e.g. "what next"), shown after the text. */
  bullets?: string[];
  table?: ReportTable;
}

export interface ReportPage {
  title: string;
  /** One-line verdict shown at the top after PASS / FAIL, e.g. "all thresholds met"; `label` replaces PASS / FAIL (e.g. SERIES). */
  verdict?: { ok: boolean; text: string; label?: string };
  /** Warnings the reader must not miss (e.g. rendered findings), shown right under the verdict. */
  notices?: Array<{ level: 'error' | 'warning' | 'info'; text: string }>;
  sections: ReportSection[];
  /** Key facts in small print at the bottom (versions, hashes, inputs). */
  footer?: Array<[string, string]>;
}

function cell(v: string | number | null): string {
  if (v === null) return '<span class="na">–</span>';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(3);
  return escapeXml(v);
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#222;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd;padding-bottom:.25rem}
.verdict{padding:.6rem 1rem;border-radius:6px;font-weight:600}.ok{background:#e6f4ea;color:#1e6b34}.fail{background:#fde8e8;color:#9b1c1c}
table{border-collapse:collapse;margin:.5rem 0;font-size:.9rem}th,td{border:1px solid #ddd;padding:.25rem .6rem;text-align:left}
th{background:#f6f6f6}tr.em td{background:#fff4e5;font-weight:600}.na{color:#999}.charts{display:flex;flex-wrap:wrap;gap:1rem}
.chart{margin:0 0 1rem}.chart svg{max-width:100%;height:auto}.chart figcaption{font-size:.85rem;color:#444;max-width:640px}code{font-size:.85rem}
.notice{margin:.3rem 0;padding:.4rem .8rem;border-left:4px solid}.notice.warning{background:#fff8e1;border-color:#f0b400}.notice.error{background:#fde8e8;border-color:#c81e1e}.notice.info{background:#eef4fb;border-color:#4e79a7}
footer{margin-top:2rem;font-size:.8rem;color:#666}footer dt{font-weight:600;float:left;clear:left;width:11rem}footer dd{margin-left:11.5rem}
`;

/**
 * Like the review page: nothing may load or run. The one inline stylesheet is allowed by its
 * hash; no script, image, frame, form target or base URL is allowed, so even a name that
 * escaped escaping could not execute or phone home.
 */
export const REPORT_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`,
  "script-src 'none'",
  "img-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const verdictLabel = (v: NonNullable<ReportPage['verdict']>) => v.label ?? (v.ok ? 'PASS' : 'FAIL');

/**
 * A self-contained HTML page: inline CSS, inline SVG, no scripts, no external assets.
 * `svgs` maps chart names to their rendered SVG (trusted: produced by vega from our specs).
 */
export function renderReportHtml(page: ReportPage, svgs: ReadonlyMap<string, string> = new Map()): string {
  const out: string[] = [];
  out.push('<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">', `<meta http-equiv="Content-Security-Policy" content="${escapeXml(REPORT_CSP)}">`, `<title>${escapeXml(page.title)}</title>`);
  out.push(`<style>${STYLE}</style>`);
  out.push('</head>', '<body>', `<h1>${escapeXml(page.title)}</h1>`);
  if (page.verdict) out.push(`<p class="verdict ${page.verdict.ok ? 'ok' : 'fail'}"><strong>${escapeXml(verdictLabel(page.verdict))}</strong> — ${escapeXml(page.verdict.text)}</p>`);
  for (const n of page.notices ?? []) out.push(`<p class="notice ${n.level}">${escapeXml(n.text)}</p>`);
  for (const s of page.sections) {
    out.push(`<h2>${escapeXml(s.heading)}</h2>`);
    if (s.text) out.push(`<p>${escapeXml(s.text)}</p>`);
    if (s.bullets?.length) out.push('<ul>', ...s.bullets.map((b) => `<li>${escapeXml(b)}</li>`), '</ul>');
    if (s.charts?.length) {
      out.push('<div class="charts">');
      for (const c of s.charts) {
        const svg = svgs.get(c.name);
        out.push(`<figure class="chart">${svg ?? ''}<figcaption>${escapeXml(c.caption)} Spec: <code>${escapeXml(chartSpecPath(c))}</code></figcaption></figure>`);
      }
      out.push('</div>');
    }
    if (s.table) {
      const em = new Set(s.table.emphasise ?? []);
      out.push('<table>', `<tr>${s.table.columns.map((c) => `<th>${escapeXml(c)}</th>`).join('')}</tr>`);
      s.table.rows.forEach((r, i) => out.push(`<tr${em.has(i) ? ' class="em"' : ''}>${r.map((v) => `<td>${cell(v)}</td>`).join('')}</tr>`));
      out.push('</table>');
    }
  }
  if (page.footer?.length) {
    out.push('<footer><dl>');
    for (const [k, v] of page.footer) out.push(`<dt>${escapeXml(k)}</dt><dd>${escapeXml(v)}</dd>`);
    out.push('</dl></footer>');
  }
  out.push('</body>', '</html>', '');
  return out.join('\n');
}

export { escapeMarkdown } from '../kernel/markdown.js';
import { escapeMarkdown } from '../kernel/markdown.js';

/** The same content as Markdown, for CI step summaries and PR comments; every text is escaped. */
export function renderReportMarkdown(page: ReportPage): string {
  const md = escapeMarkdown;
  const out: string[] = [`# ${md(page.title)}`, ''];
  if (page.verdict) out.push(`**${md(verdictLabel(page.verdict))}** — ${md(page.verdict.text)}`, '');
  for (const n of page.notices ?? []) out.push(`> ${md(n.text)}`, '');
  for (const s of page.sections) {
    if (!s.text && !s.table && !s.bullets?.length) continue;
    out.push(`## ${md(s.heading)}`, '');
    if (s.text) out.push(md(s.text), '');
    if (s.bullets?.length) out.push(...s.bullets.map((b) => `- ${md(b)}`), '');
    if (s.table) {
      out.push(`| ${s.table.columns.map(md).join(' | ')} |`, `| ${s.table.columns.map(() => '---').join(' | ')} |`);
      for (const r of s.table.rows) out.push(`| ${r.map((v) => (v === null ? '–' : typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : md(v))).join(' | ')} |`);
      out.push('');
    }
  }
  return out.join('\n');
}
