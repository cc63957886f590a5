import { finding, type Finding } from './findings.js';
import { fsFindings } from './fs-findings.js';

/**
 * Bounded memory for a stream of findings: every finding goes to `onFinding` as it comes (the
 * CLI writes it to `--findings-file` there), is counted per code, and only the first
 * `keepPerCode` of each code are held. `findings()` returns those plus one `findings-folded` per
 * code that went over, so a million bad records cost a few thousand findings, not gigabytes.
 * Codes in `keepAll` are always held (the few a tally is computed from).
 */
export class FindingCollector {
  private readonly kept: Finding[] = [];
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly options: { keepPerCode?: number; keepAll?: ReadonlySet<string>; onFinding?: (f: Finding) => Promise<void> | void } = {},
  ) {}

  /** Await it: the sink may wait for the disk. */
  async add(f: Finding): Promise<void> {
    await this.options.onFinding?.(f);
    const n = (this.counts.get(f.code) ?? 0) + 1;
    this.counts.set(f.code, n);
    if (n <= (this.options.keepPerCode ?? 1000) || this.options.keepAll?.has(f.code)) this.kept.push(f);
  }

  /** How many findings came in, held or not. */
  get total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  /** The held findings in arrival order, then one `findings-folded` per code over the bound (code order). */
  findings(): Finding[] {
    const keep = this.options.keepPerCode ?? 1000;
    const folded = [...this.counts]
      .filter(([code, n]) => n > keep && !this.options.keepAll?.has(code))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([code, n]) => finding(fsFindings, 'findings-folded', {}, { code, count: n - keep, kept: keep }));
    return [...this.kept, ...folded];
  }
}
