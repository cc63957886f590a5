/**
 * How the CLI prints findings on a terminal: bounded (the first few of each code, then a count,
 * so a bad input file does not bury the summary under thousands of lines), coloured by severity
 * only on a TTY without NO_COLOR, and filtered by verbosity. `--findings-file` always holds
 * every finding; `--json` holds the ones the command kept: readers bound bulk findings (the
 * first 1,000 of a code, or 20 per file for logs, then a `findings-folded` count).
 */
import type { Finding, Severity } from '../core/kernel/findings.js';
import { renderFinding } from '../core/kernel/render.js';

export type Verbosity = 0 | 1 | 2; // quiet: errors only; normal; verbose: everything, unbounded

export interface PrintOptions {
  verbosity: Verbosity;
  color: boolean;
  /** Findings of one code printed before the rest are summarised (normal verbosity). */
  perCode?: number;
}

const COLORS: Record<Severity, string> = { error: '\u001b[31m', warning: '\u001b[33m', info: '\u001b[36m' };
const RESET = '\u001b[0m';

/** Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(stream: { isTTY?: boolean } | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return Boolean(stream?.isTTY);
}

export function printFindings(findings: readonly Finding[], write: (line: string) => void, o: PrintOptions): void {
  const perCode = o.verbosity >= 2 ? Infinity : (o.perCode ?? 10);
  const shown = new Map<string, number>();
  const hidden = new Map<string, { count: number; severity: Severity }>();
  for (const f of findings) {
    if (o.verbosity === 0 && f.severity !== 'error') continue;
    const n = shown.get(f.code) ?? 0;
    if (n >= perCode) {
      const h = hidden.get(f.code) ?? { count: 0, severity: f.severity };
      h.count++;
      hidden.set(f.code, h);
      continue;
    }
    shown.set(f.code, n + 1);
    const text = renderFinding(f);
    write(o.color ? `${COLORS[f.severity]}${text}${RESET}` : text);
  }
  for (const [code, h] of [...hidden].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const text = `${h.severity}[${code}]: … and ${h.count} more like this (--verbose, --json or --findings-file lists them)`;
    write(o.color ? `${COLORS[h.severity]}${text}${RESET}` : text);
  }
}

/** Counts per severity, for the closing summary line. */
export function findingCounts(findings: readonly Finding[]): string {
  const c = { error: 0, warning: 0, info: 0 };
  for (const f of findings) c[f.severity]++;
  return `${c.error} error(s), ${c.warning} warning(s), ${c.info} info`;
}
