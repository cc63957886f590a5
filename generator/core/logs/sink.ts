import type { Finding, FindingPath } from '../kernel/findings.js';
import { logsFinding, type LogsFindingCode } from './findings.js';

/**
 * Collects findings, folding repeats of one code in one file after `perFileCap` so a
 * corrupted million-line log yields a readable report. Nothing is lost: the fold is
 * itself a finding carrying the count, and tallies are kept by the callers.
 */
export class FindingSink {
  readonly findings: Finding[] = [];
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perFileCap = 20,
    /** Codes that repeat by design in bulk data (e.g. a duplicated block) get a smaller cap. */
    private readonly caps: Partial<Record<LogsFindingCode, number>> = { 'table-duplicate-id': 3, 'table-duplicate-resolved': 3 },
  ) {}

  private capFor(code: string): number {
    return this.caps[code as LogsFindingCode] ?? this.perFileCap;
  }

  add(code: LogsFindingCode, path: FindingPath, args: Record<string, unknown> = {}): void {
    const key = `${path.file ?? ''}\u0000${code}`;
    const seen = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, seen);
    if (seen <= this.capFor(code)) this.findings.push(logsFinding(code, path, args));
  }

  push(...findings: Finding[]): void {
    this.pushAll(findings);
  }

  /** Appends findings one by one: a million of them never pass through a spread. */
  pushAll(findings: Iterable<Finding>): void {
    for (const f of findings) this.findings.push(f);
  }

  /** Appends one `findings-truncated` per (file, code) that went over the cap. Call once at the end. */
  close(): Finding[] {
    for (const [key, seen] of [...this.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const [file, code] = key.split('\u0000') as [string, string];
      const cap = this.capFor(code);
      if (seen <= cap) continue;
      this.findings.push(logsFinding('findings-truncated', file ? { file } : {}, { code, count: seen - cap }));
    }
    this.counts.clear();
    return this.findings;
  }
}
