/**
 * Totals and the human table `inspect` and `normalize` print. Findings are rendered
 * elsewhere (render.ts); this is only the per-file data.
 */
import type { Tally } from '../kernel/findings.js';
import { renderTally } from '../kernel/render.js';
import type { FileSummary } from './read.js';

export interface CorpusTotals {
  files: number;
  trajectories: number;
  steps: number;
  tokens: number;
  /** Trajectories whose success rests on evidence. */
  proven: number;
  failed: number;
  unknown: number;
  bySource: Record<string, number>;
  byFormat: Record<string, number>;
}

export function totalsOf(files: FileSummary[]): CorpusTotals {
  const t: CorpusTotals = { files: files.length, trajectories: 0, steps: 0, tokens: 0, proven: 0, failed: 0, unknown: 0, bySource: {}, byFormat: {} };
  for (const f of files) {
    t.trajectories += f.trajectories;
    t.steps += f.steps;
    t.tokens += f.tokens;
    if (f.format) t.byFormat[f.format] = (t.byFormat[f.format] ?? 0) + f.trajectories;
    for (const [key, n] of Object.entries(f.success)) {
      const [success, source = 'unknown'] = key.split(':');
      if (success === 'true' && source !== 'self_report' && source !== 'unknown') t.proven += n;
      else if (success === 'false') t.failed += n;
      else t.unknown += n;
      t.bySource[source] = (t.bySource[source] ?? 0) + n;
    }
  }
  return t;
}

/** `2 proven (harness_report), 1 failed, 3 unknown` */
export function describeSuccess(success: Record<string, number>): string {
  const parts: string[] = [];
  const proven = new Map<string, number>();
  let failed = 0;
  let unknown = 0;
  for (const [key, n] of Object.entries(success).sort(([a], [b]) => a.localeCompare(b))) {
    const [s, source = 'unknown'] = key.split(':');
    if (s === 'true' && source !== 'self_report' && source !== 'unknown') proven.set(source, (proven.get(source) ?? 0) + n);
    else if (s === 'false') failed += n;
    else unknown += n;
  }
  for (const [source, n] of proven) parts.push(`${n} proven (${source})`);
  if (failed) parts.push(`${failed} failed`);
  if (unknown) parts.push(`${unknown} unknown`);
  return parts.join(', ') || '-';
}

export function renderFileTable(files: FileSummary[], tally: Tally, tokenNote: string): string {
  const rows = files.map((f) => [f.file, f.format ?? '?', String(f.trajectories), String(f.steps), describeSuccess(f.success), String(f.tokens), String(f.rejected)]);
  const header = ['file', 'format', 'trajs', 'steps', 'success', `tokens${tokenNote}`, 'rejected'];
  const widths = header.map((h, i) => Math.min(70, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (r: string[]) => r.map((c, i) => (i >= 2 && i !== 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const t = totalsOf(files);
  const lines = [line(header), ...rows.map(line)];
  lines.push('');
  lines.push(`total: ${t.trajectories} trajectories, ${t.steps} steps, ${t.tokens} tokens${tokenNote}; success: ${t.proven} proven, ${t.failed} failed, ${t.unknown} unknown`);
  lines.push(renderTally('trajectories', tally));
  return lines.join('\n');
}
